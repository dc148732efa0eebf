/**
 * Several processes share one embedded read-model file: two projectors applying the same
 * log concurrently (as during a lease hand-over) must neither fail on locks nor project
 * anything into a different result, and only one of them holds the lease.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';
import { openSqliteReadModel } from '../../host/readmodel/sqlite.ts';
import { sharedLog } from './readmodel-processes.fixture.ts';

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'readmodel-processes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const worker = join(import.meta.dirname, 'readmodel-worker.ts');

it('two processes projecting into one file give the same read model as one', async () => {
  const shared = join(dir, 'shared.db');
  await openSqliteReadModel(shared).close(); // create the schema once, before the race
  const results = await Promise.all(
    ['A', 'B'].map(async (holder) => JSON.parse((await run(process.execPath, ['--import', 'tsx', worker, shared, holder])).stdout)),
  );
  const wins = results.map((r: { wins: number }) => r.wins);
  // The lease never expired (60 s): whoever took it first kept it, the other never got it.
  expect(wins.filter((w) => w > 0)).toHaveLength(1);

  const log = sharedLog();
  const reference = openSqliteReadModel(join(dir, 'reference.db'));
  await reference.apply(log.events, log.events[log.events.length - 1]!.position);
  const model = openSqliteReadModel(shared);
  const everything = { sort: 'slug', includeHidden: true, limit: 500, offset: 0 } as const;
  expect((await model.listSites(everything)).all).toEqual((await reference.listSites(everything)).all);
  expect(await model.listQuarantined()).toEqual(await reference.listQuarantined());
  expect(await model.listKeys()).toEqual(await reference.listKeys());
  expect(await model.checkpoint()).toBe(log.events[log.events.length - 1]!.position);
  expect((await model.listSites(everything)).count).toBe(108);
  await model.close();
  await reference.close();
}, 60_000);

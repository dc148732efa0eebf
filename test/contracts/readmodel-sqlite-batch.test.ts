/**
 * What the SQLite read model does beyond the port's contract when it writes a batch:
 * documents another writer moved meanwhile are rewritten whole, and a batch that fills
 * empty site tables (building their indexes after its rows) leaves every index in place,
 * also when it fails and rolls back.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, expect, it } from 'vitest';
import { openSqliteReadModel } from '../../host/readmodel/sqlite.ts';
import { SITE_INDEXES } from '../../host/readmodel/sqlite-schema.ts';
import type { Recorded } from '../../domain/events.ts';
import type { ReadModel } from '../../projections/read-model.ts';
import { everything } from './readmodel-batch-contract.ts';
import { meta, published, revision } from './readmodel-events.ts';
import { history, recordAll } from './readmodel-history.ts';

const dir = mkdtempSync(join(tmpdir(), 'readmodel-sqlite-batch-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const opened: ReadModel[] = [];
const open = (file = join(dir, `rm-${++n}.db`)) => {
  const model = openSqliteReadModel(file);
  opened.push(model);
  return { model, file };
};
afterEach(async () => {
  for (const m of opened.splice(0)) await m.close();
});

const appends = history(1_200, 3, 7);
const { events } = recordAll(appends);
const indexes = (file: string): string[] => {
  const db = new Database(file, { readonly: true });
  const names = db.prepare<[], { name: string }>(`SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_%'`).all().map((r) => r.name);
  db.close();
  return names;
};

it('rewrites whole a document that another writer moved while the batch was built', async () => {
  const { model, file } = open();
  const other = open(file).model;
  await model.apply(events.slice(0, 100), events[99]!.position);
  const batch = await model.beginBatch();
  await batch.add(events.slice(100, 3_000));
  // Another writer applies part of the same events and leaves the checkpoint where it was
  // (as a projector that crashed before its checkpoint would): the batch's view of those
  // documents is stale, its checkpoint check passes.
  await other.apply(events.slice(100, 1_500), events[99]!.position);
  await batch.commit(events[2_999]!.position);
  await model.apply(events.slice(3_000), events[events.length - 1]!.position);

  const straight = open().model;
  await straight.apply(events, events[events.length - 1]!.position);
  expect(await everything(model, appends)).toEqual(await everything(straight, appends));
}, 60_000);

it('builds the site indexes after filling empty tables, and keeps them when the batch fails', async () => {
  const { model, file } = open();
  const all = indexes(file);
  for (const index of SITE_INDEXES) expect(all).toContain(index.name);

  // A batch into empty tables with two streams claiming one path: it fails at the end and
  // rolls back, with the indexes it dropped for the bulk load.
  const batch = await model.beginBatch();
  await batch.add(events);
  const clash = (stream: string, position: string) =>
    ({ ...published('clash', 99_999, revision(stream), meta('Clash')), stream, revision: 0, position, meta: events[0]!.meta }) as Recorded;
  await batch.add([clash('site-clash-a', '999999999998'), clash('site-clash-b', '999999999999')]);
  await expect(batch.commit('999999999999')).rejects.toThrow(/UNIQUE/);
  expect(indexes(file).sort()).toEqual([...all].sort());
  expect(await model.checkpoint()).toBeUndefined();
  expect((await model.listSites({ sort: 'slug', includeHidden: true, limit: 1, offset: 0 })).count).toBe(0);

  // The same without the clash: committed, every index back, queries as over an incremental build.
  const again = await model.beginBatch();
  await again.add(events);
  await again.commit(events[events.length - 1]!.position);
  expect(indexes(file).sort()).toEqual([...all].sort());
  const incremental = open().model;
  for (let i = 0; i < events.length; i += 97) await incremental.apply(events.slice(i, i + 97), events[Math.min(i + 96, events.length - 1)]!.position);
  expect(await everything(model, appends)).toEqual(await everything(incremental, appends));
}, 60_000);

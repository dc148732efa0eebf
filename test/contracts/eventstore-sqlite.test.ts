import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteEventStore } from '../../host/eventstore/sqlite.ts';
import { many, used } from './eventstore/fixtures.ts';

// What only the embedded log has to prove: real processes sharing the file, durability
// across reopening, the on-disk layout, and clear errors for caller bugs.
const run = promisify(execFile);
let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sites-eventstore-sqlite-'));
  file = join(dir, 'nested', 'events.sqlite');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('SQLite event log', () => {
  it('serializes appends from several processes: contiguous revisions, no lost or torn append', async () => {
    const stream = 'key-shared';
    await openSqliteEventStore(file).close(); // create the file (and folder) before the race
    const worker = join(import.meta.dirname, 'eventstore', 'append-worker.ts');
    const perWorker = 40;
    const outputs = await Promise.all(
      [1, 2, 3].map((label) => run(process.execPath, ['--import', 'tsx', worker, file, stream, String(label), String(perWorker)])),
    );
    const conflicts = outputs.map((o) => (JSON.parse(o.stdout.trim().split('\n').pop()!) as { conflicts: number }).conflicts);

    const store = openSqliteEventStore(file);
    const { events, revision } = await store.readStream(stream);
    expect(revision).toBe(3 * perWorker * 2 - 1);
    expect(events.map((e) => e.revision)).toEqual([...Array(3 * perWorker * 2).keys()]);
    const ids = events.map((e) => (e.data as { id: number }).id);
    for (let i = 0; i < ids.length; i += 2) expect(ids[i + 1]).toBe(ids[i] + 1); // each append's pair stays together
    for (const label of [1, 2, 3]) {
      const mine = ids.filter((id) => Math.floor(id / 1000) === label);
      expect(mine).toEqual([...Array(perWorker * 2).keys()].map((k) => label * 1000 + k));
    }
    // Pages of 3 never cut a pair, so every page holds whole appends.
    for (let from: string | undefined, page; (page = await store.readAll(from, 3)).length > 0; from = page[page.length - 1].position) {
      expect(page.length % 2).toBe(0);
    }
    await store.close();
    console.log(`lost races per process (retried): ${conflicts.join(', ')}`);
  }, 60_000);

  it('keeps everything across close and reopen, and positions keep growing', async () => {
    const first = openSqliteEventStore(file);
    const a = await first.append('key-1', many(3), -1);
    await first.close();
    const second = openSqliteEventStore(file);
    expect((await second.readStream('key-1')).revision).toBe(2);
    const b = await second.append('key-1', [used(9)], 2);
    expect(Number(b.position)).toBeGreaterThan(Number(a.position));
    expect((await second.readAll(undefined, 10)).map((e) => e.position)).toEqual(['1', '2', '3', '4']);
    await second.close();
  });

  it('lays the log out as one append-only table in WAL mode, with one commit number per append', async () => {
    const store = openSqliteEventStore(file);
    await store.append('site-docs', many(2), -1);
    await store.append('key-1', [used(5)], -1);
    await store.close();
    const db = new Database(file, { readonly: true });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    const rows = db.prepare('SELECT position, commit_no, stream, revision, type, data, meta FROM events ORDER BY position').all();
    db.close();
    expect(rows).toMatchObject([
      { position: 1, commit_no: 1, stream: 'site-docs', revision: 0, type: 'KeyUsed' },
      { position: 2, commit_no: 1, stream: 'site-docs', revision: 1 },
      { position: 3, commit_no: 2, stream: 'key-1', revision: 0 },
    ]);
    expect(JSON.parse((rows[0] as { meta: string }).meta)).toEqual(used(0).meta);
  });

  it('rejects caller bugs clearly and writes nothing', async () => {
    const store = openSqliteEventStore(file);
    await expect(store.readAll('3/4', 10)).rejects.toThrow(/not an event-log position/);
    await expect(store.readAll(undefined, 0)).rejects.toThrow(/limit/);
    await expect(store.append('', [used(1)], -1)).rejects.toThrow(/stream name/);
    await expect(store.append('$stats', [used(1)], -1)).rejects.toThrow(/"\$"/);
    await expect(store.append('key-1', [used(1)], -2)).rejects.toThrow(/expected revision/);
    await expect(store.append('key-1', [{ ...used(1), type: '$metadata' } as never], -1)).rejects.toThrow(/event type/);
    expect(await store.readAll(undefined, 10)).toEqual([]);
    await store.close();
    await expect(store.readStream('key-1')).rejects.toThrow(/closed/);
  });
});

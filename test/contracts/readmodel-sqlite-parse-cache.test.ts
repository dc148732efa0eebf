/**
 * The SQLite read model's cache of parsed site documents is bounded: at 100,000 sites it
 * came to hold every document once the listings had read them all (about 1 KB of heap a
 * site). A document read again is the same object while it is kept, a new parse after it
 * was pushed out; the group tree's reads (getSites) are not kept at all.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { openSqliteReadModel } from '../../host/readmodel/sqlite.ts';
import { history, recordAll } from './readmodel-history.ts';

const dir = mkdtempSync(join(tmpdir(), 'readmodel-sqlite-parse-cache-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('keeps at most its bound of parsed documents, least recently used out, and none from the tree’s reads', async () => {
  const model = openSqliteReadModel(join(dir, 'rm.db'), { parsedMax: 2 });
  try {
    const { events } = recordAll(history(200, 3, 7));
    await model.apply(events, events[events.length - 1]!.position);
    const { all } = await model.listSites({ sort: 'slug', includeHidden: true, limit: 3, offset: 0 });
    expect(all.length).toBeGreaterThanOrEqual(4);
    const [a, b, c, d] = all.map((s) => s.path) as [string, string, string, string];

    const first = await model.getSite(a);
    await model.getSite(b);
    expect(await model.getSite(b)).toBe(await model.getSite(b));
    await model.getSite(c); // a is the least recently used of three: out
    expect(await model.getSite(a)).not.toBe(first);
    expect(await model.getSite(a)).toEqual(first);

    const [viaTree] = await model.getSites([d]);
    const [again] = await model.getSites([d]);
    expect(again).not.toBe(viaTree);
    expect(again).toEqual(viaTree);
  } finally {
    await model.close();
  }
});

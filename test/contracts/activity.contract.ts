/**
 * The contract every ActivityStore adapter passes (projections/activity.ts): what the
 * projector writes and what `GET /api/events` reads. Run by activity.test.ts against the
 * embedded store always and MongoDB when SITES_MONGO_URL is set.
 */
import { describe, expect, it } from 'vitest';
import type { Recorded } from '../../domain/events.ts';
import type { ActivityFilter, ActivityPage, ActivityStore } from '../../projections/activity.ts';
import { positionKey } from '../../projections/positions.ts';
import { ALICE, BOT, KEY, SYSTEM, subscriberLog } from './subscribers-log.ts';

export type ActivityFactory = () => Promise<{ store: ActivityStore; another: () => Promise<ActivityStore> }>;

async function feed(store: ActivityStore, events: readonly Recorded[], size = 3): Promise<void> {
  const batch = await store.beginBatch();
  for (let i = 0; i < events.length; i += size) await batch.add(events.slice(i, i + size));
  await batch.commit(events[events.length - 1]!.position);
}

const ids = (entries: readonly { id: string }[]) => entries.map((e) => Number(e.id));
const desc = (limit = 100, after?: string): ActivityPage => ({ order: 'desc', limit, ...(after ? { after: positionKey(after) } : {}) });

/** The log every query test reads: 12 events by four actors over three site trees, keys and an id allocation. */
function fixture() {
  const log = subscriberLog();
  log.allocated(); // 1: bookkeeping, never listed
  log.publish('docs/app'); // 2
  log.publish('docs/sub/deep', ALICE); // 3
  log.publish('docs', BOT); // 4 (the flat site named like the group)
  log.publish('docsx/app'); // 5
  log.keyIssued(8); // 6 by alice
  log.publish('other/app', SYSTEM); // 7
  log.unpublish('docs/app', ALICE); // 8
  log.publish('docs/app', KEY, 100); // 9: an hour and a half later
  log.publish('other/two', KEY, 5); // 10: an instance whose clock ran behind (5 < 100)
  log.keyIssued(9, KEY); // 11
  log.publish('docs/sub/deep', BOT); // 12
  return log;
}

export function activityContract(name: string, factory: ActivityFactory): void {
  describe(`ActivityStore contract: ${name}`, () => {
    it('starts empty, then holds every event but bookkeeping, newest first, with its checkpoint', async () => {
      const { store } = await factory();
      expect(await store.checkpoint()).toBeUndefined();
      expect(await store.query({}, desc())).toEqual([]);
      const log = fixture();
      await feed(store, log.events);
      expect(await store.checkpoint()).toBe(log.events.at(-1)!.position);
      const all = await store.query({}, desc());
      expect(ids(all)).toEqual([12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2]);
      expect(all[0]).toEqual({ id: log.events[11]!.position, type: 'SitePublished', at: log.events[11]!.meta.at, actor: BOT, site: 'docs/sub/deep', data: expect.objectContaining({ group: 'docs/sub', slug: 'deep' }) });
      const key = all.find((e) => e.type === 'KeyIssued')!;
      expect(key.site).toBeUndefined();
      expect(JSON.stringify(key.data)).not.toContain('tokenHash');
      expect(ids(await store.query({}, { order: 'asc', limit: 3 }))).toEqual([2, 3, 4]);
      await store.close();
    });

    it('pages after a position in either order, and a limit holds', async () => {
      const { store } = await factory();
      const log = fixture();
      await feed(store, log.events);
      expect(ids(await store.query({}, desc(4)))).toEqual([12, 11, 10, 9]);
      expect(ids(await store.query({}, desc(4, log.events[8]!.position)))).toEqual([8, 7, 6, 5]);
      expect(ids(await store.query({}, { order: 'asc', limit: 2, after: positionKey(log.events[8]!.position) }))).toEqual([10, 11]);
      expect(ids(await store.query({ types: ['SitePublished'] }, desc(2, log.events[9]!.position)))).toEqual([9, 7]);
      await store.close();
    });

    it('filters by type (any of several), actor, person, site subtree and time, combined with AND', async () => {
      const { store } = await factory();
      const log = fixture();
      await feed(store, log.events);
      const q = async (filter: ActivityFilter) => ids(await store.query(filter, desc()));
      expect(await q({ types: ['KeyIssued'] })).toEqual([11, 6]);
      expect(await q({ types: ['KeyIssued', 'SiteQuarantined'] })).toEqual([11, 8, 6]);
      expect(await q({ types: ['NoSuchEvent'] })).toEqual([]);
      expect(await q({ actor: { by: 'actor', key: 'key:7' } })).toEqual([11, 10, 9, 5, 2]);
      expect(await q({ actor: { by: 'actor', key: 'connection:c1' } })).toEqual([12, 4]);
      expect(await q({ actor: { by: 'actor', key: 'system:quarantine' } })).toEqual([7]);
      // A person: what they did themselves and what their MCP connection did.
      expect(await q({ actor: { by: 'person', name: 'alice' } })).toEqual([12, 8, 6, 4, 3]);
      expect(await q({ site: 'docs' })).toEqual([12, 9, 8, 4, 3, 2]);
      expect(await q({ site: 'docs/sub' })).toEqual([12, 3]);
      expect(await q({ site: 'docs/sub/deep' })).toEqual([12, 3]);
      expect(await q({ site: 'docs/app' })).toEqual([9, 8, 2]);
      expect(await q({ site: 'doc' })).toEqual([]);
      // Times compare the running time: event 10's clock ran behind, so it counts at event 9's time.
      const minute = (m: number) => new Date(Date.parse('2026-01-01T00:00:00.000Z') + m * 60_000).toISOString();
      expect(await q({ since: minute(9) })).toEqual([12, 11, 10, 9]);
      expect(await q({ until: minute(4) })).toEqual([4, 3, 2]);
      expect(await q({ since: minute(3), until: minute(6) })).toEqual([6, 5, 4, 3]);
      expect(await q({ since: minute(200) })).toEqual([]);
      expect(await q({ until: minute(0) })).toEqual([]);
      expect(await q({ since: minute(7), until: minute(6) })).toEqual([]);
      expect(await q({ site: 'docs', types: ['SitePublished'], actor: { by: 'actor', key: 'key:7' } })).toEqual([9, 2]);
      expect(await q({ site: 'docs', since: minute(5), actor: { by: 'person', name: 'alice' } })).toEqual([12, 8]);
      await store.close();
    });

    it('stores an event once however often it is fed, and refuses a batch whose checkpoint moved', async () => {
      const { store, another } = await factory();
      const log = fixture();
      await feed(store, log.events.slice(0, 6));
      const second = await another();
      // Two projectors that began at the same checkpoint: the second commit is refused, its rows change nothing.
      const a = await store.beginBatch();
      const b = await second.beginBatch();
      await a.add(log.events.slice(6));
      await b.add(log.events.slice(6));
      await a.commit(log.events.at(-1)!.position);
      await expect(b.commit(log.events.at(-1)!.position)).rejects.toThrow(/checkpoint moved/);
      // A crash between rows and checkpoint: the same events come again.
      const again = await store.beginBatch();
      await again.add(log.events.slice(9));
      expect(ids(await store.query({}, desc()))).toEqual([12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2]);
      expect(await second.checkpoint()).toBe(log.events.at(-1)!.position);
      await second.close();
      await store.close();
    });
  });
}

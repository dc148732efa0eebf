import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StreamConflictError } from '../../../domain/errors.ts';
import type { EventMeta, Recorded } from '../../../domain/events.ts';
import type { EventStore, EventToAppend } from '../../../domain/ports.ts';
import { many, systemMeta, uniqueStream, used } from './fixtures.ts';

/** One backing log (a file, a server) on which the suite may open several store instances. */
export type EventStoreBacking = {
  /** Opens one more store instance on the same log (another connection / client). */
  open(): Promise<EventStore>;
  /** True when the log starts empty for every test (the embedded file); false for a shared server. */
  readonly empty: boolean;
  dispose(): Promise<void>;
};

/** Reads every event after `after`, page by page, keeping only the given streams. */
async function readPages(store: EventStore, after: string | undefined, limit: number, streams: Set<string>) {
  const pages: Recorded[][] = [];
  for (let from = after; ; ) {
    const page = await store.readAll(from, limit);
    if (page.length === 0) return pages;
    expect(page.length).toBeLessThanOrEqual(limit);
    pages.push(page.filter((e) => streams.has(e.stream)));
    from = page[page.length - 1].position;
  }
}

const elapsed = async (p: Promise<unknown>): Promise<number> => {
  const start = performance.now();
  await p;
  return performance.now() - start;
};

/** The behaviour every `EventStore` adapter must show, run once per adapter. */
export function describeEventStoreContract(name: string, createBacking: () => Promise<EventStoreBacking>): void {
  describe(`EventStore contract: ${name}`, () => {
    let backing: EventStoreBacking;
    let store: EventStore;
    const opened: EventStore[] = [];
    const open = async (): Promise<EventStore> => {
      const s = await backing.open();
      opened.push(s);
      return s;
    };
    /** Appends one event to a fresh stream: its position is a point in the log before the test's own events. */
    const mark = async (): Promise<string> => (await store.append(uniqueStream('mark'), [used(0)], -1)).position;

    beforeEach(async () => {
      backing = await createBacking();
      store = await open();
    });
    afterEach(async () => {
      for (const s of opened.splice(0)) await s.close();
      await backing.dispose();
    });

    it('reads back appended events with stream, revision, position and metadata', async () => {
      const stream = uniqueStream('roundtrip');
      const first = await store.append(stream, [used(1), used(2)], -1);
      expect(first.revision).toBe(1);
      expect(typeof first.position).toBe('string');
      const second = await store.append(stream, [used(3)], 1);
      expect(second.revision).toBe(2);

      const { events, revision } = await store.readStream(stream);
      expect(revision).toBe(2);
      expect(events.map((e) => [e.type, e.stream, e.revision, e.data])).toEqual([
        ['KeyUsed', stream, 0, used(1).data],
        ['KeyUsed', stream, 1, used(2).data],
        ['KeyUsed', stream, 2, used(3).data],
      ]);
      expect(events.every((e) => JSON.stringify(e.meta) === JSON.stringify(systemMeta))).toBe(true);
      expect(events[1].position).toBe(first.position);
      expect(events[2].position).toBe(second.position);
      expect(new Set(events.map((e) => e.position)).size).toBe(3);
    });

    it('returns an empty stream at revision -1 for a stream never written', async () => {
      expect(await store.readStream(uniqueStream('missing'))).toEqual({ events: [], revision: -1 });
      expect(await store.streamRevision(uniqueStream('missing'))).toBe(-1);
    });

    it('checks the expected revision and writes nothing on a conflict', async () => {
      const stream = uniqueStream('expected');
      await expect(store.append(stream, [used(1)], 0)).rejects.toBeInstanceOf(StreamConflictError);
      expect((await store.readStream(stream)).revision).toBe(-1);

      await store.append(stream, [used(1), used(2)], -1);
      for (const wrong of [-1, 0, 2, 7]) {
        const err = await store.append(stream, [used(9), used(10)], wrong).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(StreamConflictError);
        expect((err as StreamConflictError).stream).toBe(stream);
        expect((err as StreamConflictError).expected).toBe(wrong);
      }
      expect((await store.append(stream, [used(3)], 1)).revision).toBe(2);
      expect(await store.streamRevision(stream)).toBe(2);
      const { events } = await store.readStream(stream);
      expect(events.map((e) => (e.data as { id: number }).id)).toEqual([1, 2, 3]);
    });

    it('treats an empty append as a revision check that writes nothing', async () => {
      const stream = uniqueStream('empty');
      expect((await store.append(stream, [], -1)).revision).toBe(-1);
      await expect(store.append(stream, [], 0)).rejects.toBeInstanceOf(StreamConflictError);
      await store.append(stream, [used(1)], -1);
      expect((await store.append(stream, [], 0)).revision).toBe(0);
      expect((await store.readStream(stream)).events).toHaveLength(1);
    });

    const race = async (a: EventStore, b: EventStore, stream: string, expected: number) => {
      const results = await Promise.allSettled([
        a.append(stream, [used(100), used(101)], expected),
        b.append(stream, [used(200), used(201)], expected),
      ]);
      const won = results.filter((r) => r.status === 'fulfilled');
      const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(1);
      expect(lost[0].reason).toBeInstanceOf(StreamConflictError);
      const winner = results[0].status === 'fulfilled' ? [100, 101] : [200, 201];
      const { events } = await a.readStream(stream);
      expect(events.slice(expected + 1).map((e) => (e.data as { id: number }).id)).toEqual(winner);
      expect(events).toHaveLength(expected + 3);
    };

    it('lets exactly one of two racing appends win (one instance)', async () => {
      await race(store, store, uniqueStream('race-new'), -1);
      const stream = uniqueStream('race-exact');
      await store.append(stream, [used(1)], -1);
      await race(store, store, stream, 0);
    });

    it('lets exactly one of two racing appends win (two instances on one log)', async () => {
      const other = await open();
      await race(store, other, uniqueStream('race2-new'), -1);
      const stream = uniqueStream('race2-exact');
      await other.append(stream, [used(1), used(2)], -1);
      await race(other, store, stream, 1);
    });

    it('reads all streams in global order and resumes exactly after a position', async () => {
      const start = await mark();
      const [a, b, c] = [uniqueStream('a'), uniqueStream('b'), uniqueStream('c')];
      await store.append(a, [used(1), used(2)], -1);
      await store.append(b, [used(3)], -1);
      await store.append(a, [used(4)], 1);
      await store.append(c, [used(5), used(6), used(7)], -1);
      const ours = new Set([a, b, c]);

      const all = (await store.readAll(start, 1000)).filter((e) => ours.has(e.stream));
      expect(all.map((e) => [e.stream, e.revision, (e.data as { id: number }).id])).toEqual([
        [a, 0, 1], [a, 1, 2], [b, 0, 3], [a, 2, 4], [c, 0, 5], [c, 1, 6], [c, 2, 7],
      ]);
      const afterB = (await store.readAll(all[2].position, 1000)).filter((e) => ours.has(e.stream));
      expect(afterB.map((e) => (e.data as { id: number }).id)).toEqual([4, 5, 6, 7]);
      expect(await store.readAll(all[6].position, 10)).toEqual([]);
      expect((await store.readStream(a)).events.map((e) => e.position)).toEqual([all[0].position, all[1].position, all[3].position]);
    });

    it('starts from the first event when no position is given', async () => {
      const stream = uniqueStream('first');
      await store.append(stream, [used(1), used(2)], -1);
      const page = await store.readAll(undefined, 2);
      expect(page.length).toBeGreaterThan(0);
      expect(await store.readAll(undefined, 2)).toEqual(page);
      if (backing.empty) expect(page.map((e) => [e.stream, e.revision])).toEqual([[stream, 0], [stream, 1]]);
      expect((await store.readAll(page[0].position, 1))[0]?.position).not.toBe(page[0].position);
    });

    it('respects the limit and never splits an append that fits in it', async () => {
      const start = await mark();
      const sizes = [1, 3, 2, 4, 1, 2];
      const streams: string[] = [];
      for (const [i, size] of sizes.entries()) {
        const stream = uniqueStream(`page${i}`);
        streams.push(stream);
        await store.append(stream, many(size, i * 10), -1);
      }
      const ours = new Set(streams);
      for (const limit of [4, 5, 2, 1]) {
        const pages = await readPages(store, start, limit, ours);
        // Every event exactly once, in append order.
        expect(pages.flat().map((e) => e.stream)).toEqual(sizes.flatMap((size, i) => Array(size).fill(streams[i])));
        for (const [i, size] of sizes.entries()) {
          const holding = pages.filter((p) => p.some((e) => e.stream === streams[i]));
          // An append larger than the limit may be cut, and then only into full pages.
          if (size <= limit) expect(holding, `append ${i} with limit ${limit}`).toHaveLength(1);
          else expect(holding.length).toBe(Math.ceil(size / limit));
        }
      }
    });

    it('round-trips every kind of actor and the time in the metadata', async () => {
      const metas: EventMeta[] = [
        { actor: { kind: 'key', id: 7, name: 'ci' }, at: '2025-03-04T05:06:07.089Z' },
        { actor: { kind: 'user', name: 'alice@example.org' }, at: '2025-03-04T05:06:08.000Z' },
        { actor: { kind: 'connection', id: 'c-1', name: 'Claude', user: 'bob' }, at: '2025-03-04T05:06:09.000Z' },
        { actor: { kind: 'system', name: 'gc' }, at: '2025-03-04T05:06:10.000Z' },
      ];
      const stream = uniqueStream('meta');
      await store.append(stream, metas.map((m, i) => used(i, m)), -1);
      const { events } = await store.readStream(stream);
      expect(events.map((e) => e.meta)).toEqual(metas);
      const start = await mark();
      await store.append(uniqueStream('meta2'), [used(1, metas[2])], -1);
      expect((await store.readAll(start, 10)).find((e) => e.stream.includes('meta2'))?.meta).toEqual(metas[2]);
    });

    it('stores a large payload and text outside ASCII unchanged', async () => {
      // ~400 kB: well within EventStoreDB's default 1 MiB append limit.
      const revisions = Array.from({ length: 4000 }, (_, i) => ({ id: `r${i}-é✓🚀"\\`, manifest: i.toString(16).padStart(64, '0') }));
      const event: EventToAppend = { type: 'SitePurged', data: { siteId: 3, revisions }, meta: systemMeta };
      const stream = uniqueStream('large');
      await store.append(stream, [event], -1);
      const { events } = await store.readStream(stream);
      expect(events[0].data).toEqual({ siteId: 3, revisions });
    });

    describe('waitForEvents', () => {
      it('resolves at once when events after the position exist', async () => {
        const start = await mark();
        await store.append(uniqueStream('w'), [used(1)], -1);
        expect(await elapsed(store.waitForEvents(start, 10_000))).toBeLessThan(1000);
        expect(await elapsed(store.waitForEvents(undefined, 10_000))).toBeLessThan(1000);
      });

      it('wakes on an append through the same instance', async () => {
        const head = await mark();
        const woken = store.waitForEvents(head, 10_000);
        await store.append(uniqueStream('w1'), [used(1)], -1);
        expect(await elapsed(woken)).toBeLessThan(2000);
      });

      it('wakes on an append through another instance on the same log', async () => {
        const other = await open();
        const head = await mark();
        const woken = store.waitForEvents(head, 10_000);
        await other.append(uniqueStream('w2'), [used(1)], -1);
        expect(await elapsed(woken)).toBeLessThan(2000);
      });

      it('times out when nothing is appended', async () => {
        const head = await mark();
        const took = await elapsed(store.waitForEvents(head, 250));
        expect(took).toBeGreaterThanOrEqual(200);
        expect(took).toBeLessThan(2000);
        if (backing.empty) expect(await store.readAll(head, 10)).toEqual([]);
      });

      it('is released when the store closes', async () => {
        const other = await open();
        const head = await mark();
        const waiting = other.waitForEvents(head, 10_000);
        await other.close();
        expect(await elapsed(waiting)).toBeLessThan(1000);
      });
    });
  });
}

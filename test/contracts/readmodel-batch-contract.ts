/**
 * Projection batches (`beginBatch`), for every ReadModel adapter: however a history is cut
 * into batches and pages — one batch for all of it, many small ones, every page delivered
 * twice, or one event per `apply` — the read model ends the same; a batch not committed
 * (a crash) leaves the previous batch's state and checkpoint; a batch whose checkpoint
 * another projector moved is refused.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Recorded } from '../../domain/events.ts';
import type { ReadModel, SiteQuery } from '../../projections/read-model.ts';
import type { ReadModelFactory } from './readmodel-contract.ts';
import { blobsOf, history, recordAll, type Append } from './readmodel-history.ts';

/** What the queries of the port answer, over everything the history can have produced. */
export async function everything(model: ReadModel, appends: readonly Append[]) {
  const all: SiteQuery = { sort: 'slug', includeHidden: true, limit: 100_000, offset: 0 };
  const paths = async (q: Partial<SiteQuery>) =>
    (await model.listSites({ ...all, ...q })).all.map((d) => d.path);
  const streams = [...new Set(appends.map((a) => a.stream))].sort();
  const tags = ['red', 'green', 'blue', 'Cyan', 'magenta', 'yellow'];
  return {
    sites: (await model.listSites(all)).all,
    byTitle: await paths({ sort: 'title' }),
    byDate: await paths({ sort: 'date', includeHidden: false }),
    byTag: await Promise.all(tags.map((tag) => paths({ tag }))),
    search: await paths({ q: 'charlie' }),
    group: await paths({ group: 'g3' }),
    quarantined: (await model.listQuarantined()).map((d) => d.path),
    keys: await model.listKeys(),
    byToken: await Promise.all([0, 1, 2, 3, 4].map((k) => model.getKeyByTokenHash(`token-${k}`))),
    connections: await model.listConnections(),
    clients: await Promise.all([0, 1, 2].map((c) => model.getOAuthClient(`c${c}`))),
    referenced: [...(await model.referencedBlobs(blobsOf(appends)))].sort(),
    revisions: await Promise.all(streams.map((s) => model.streamRevision(s))),
  };
}

const last = (events: readonly Recorded[]): string => events[events.length - 1]!.position;

/** Applies `events` as batches of `batch` events, each read in pages of `page` (each delivered `times` times). */
async function inBatches(model: ReadModel, events: readonly Recorded[], batch: number, page: number, times = 1): Promise<void> {
  for (let i = 0; i < events.length; i += batch) {
    const b = await model.beginBatch();
    const part = events.slice(i, i + batch);
    for (let j = 0; j < part.length; j += page) for (let t = 0; t < times; t++) await b.add(part.slice(j, j + page));
    await b.commit(last(part));
  }
}

export function readModelBatchContract(name: string, factory: ReadModelFactory): void {
  describe(`ReadModel batches: ${name}`, () => {
    const opened: ReadModel[] = [];
    const open = async () => {
      const made = await factory();
      opened.push(made.model);
      return { model: made.model, another: async () => opened[opened.push(await made.another()) - 1]! };
    };
    afterEach(async () => {
      for (const m of opened.splice(0)) await m.close();
    });

    // 1,200 sites: enough for one batch to fill empty tables in bulk, as a replay does.
    const appends = history(1_200, 4);
    const { events } = recordAll(appends);

    it('ends the same however the log is cut into batches and pages', async () => {
      // One `apply` per event: every write goes over the stored document of the previous one.
      const one = (await open()).model;
      for (const e of events) await one.apply([e], e.position);
      const reference = await everything(one, appends);
      expect(reference.sites.length).toBeGreaterThan(500);
      expect(reference.quarantined.length).toBeGreaterThan(10);
      expect(reference.referenced.length).toBeGreaterThan(100);

      const whole = (await open()).model;
      await inBatches(whole, events, events.length, 500);
      expect(await everything(whole, appends)).toEqual(reference);
      expect(await whole.checkpoint()).toBe(last(events));

      // Many small batches, every page delivered twice (a projector may see an event again).
      const small = (await open()).model;
      await inBatches(small, events, 613, 37, 2);
      expect(await everything(small, appends)).toEqual(reference);

      // The first rounds in one batch, the rest in another: a big batch over stored documents.
      const halves = (await open()).model;
      const cut = Math.floor(events.length / 2);
      await inBatches(halves, events.slice(0, cut), cut, 1_000);
      await inBatches(halves, events.slice(cut), events.length, 1_000);
      expect(await everything(halves, appends)).toEqual(reference);

      // And again over a read model that already holds all of it: nothing changes.
      await inBatches(halves, events, events.length, 250);
      expect(await everything(halves, appends)).toEqual(reference);
    }, 60_000);

    it('keeps the last committed batch when the next one is never committed (a crash)', async () => {
      const { model, another } = await open();
      const cut = 2_000;
      await inBatches(model, events.slice(0, cut), cut, 300);
      const crashed = await model.beginBatch();
      await crashed.add(events.slice(cut, cut + 1_500));
      await model.close(); // the process dies before commit

      const after = await another();
      expect(await after.checkpoint()).toBe(events[cut - 1]!.position);
      const upToCut = (await open()).model;
      await upToCut.apply(events.slice(0, cut), events[cut - 1]!.position);
      expect(await everything(after, appends)).toEqual(await everything(upToCut, appends));

      // The next projector resumes from that checkpoint and reaches the same end as one that never crashed.
      const resumed = await after.beginBatch();
      expect(resumed.from).toBe(events[cut - 1]!.position);
      await resumed.add(events.slice(cut));
      await resumed.commit(last(events));
      const straight = (await open()).model;
      await straight.apply(events, last(events));
      expect(await everything(after, appends)).toEqual(await everything(straight, appends));
    }, 60_000);

    it('refuses a batch whose checkpoint another projector moved meanwhile', async () => {
      const { model, another } = await open();
      const other = await another();
      await model.apply(events.slice(0, 100), events[99]!.position);
      const stale = await model.beginBatch();
      expect(stale.from).toBe(events[99]!.position);
      await other.apply(events.slice(100, 200), events[199]!.position); // the lease changed hands
      await stale.add(events.slice(100, 300));
      await expect(stale.commit(events[299]!.position)).rejects.toThrow(/checkpoint/);
      expect(await model.checkpoint()).toBe(events[199]!.position);

      // Whatever the refused batch left, projecting on from the checkpoint ends as a clean run.
      await inBatches(other, events.slice(200), events.length, 400);
      const straight = (await open()).model;
      await straight.apply(events, last(events));
      expect(await everything(model, appends)).toEqual(await everything(straight, appends));
    }, 60_000);

    /** Each stream's last revision among the events up to and including position `at`. */
    const coveredRevisions = (at: string | undefined): Map<string, number> => {
      const covered = new Map<string, number>();
      for (const e of events) {
        if (at === undefined || e.position > at) break; // positions of the suite's log sort as strings
        covered.set(e.stream, e.revision);
      }
      return covered;
    };
    const streamsOf = [...new Set(events.map((e) => e.stream))];

    /**
     * What a command waits on never runs ahead of the checkpoint: each stream answers the
     * revision the checkpoint covers, or -1 ("not yet") while its document is ahead of it
     * (written by a batch that has not, or never will, commit).
     */
    async function expectNothingAhead(handles: readonly ReadModel[]): Promise<void> {
      for (const h of handles) {
        const covered = coveredRevisions(await h.checkpoint());
        const wrong: string[] = [];
        for (const stream of streamsOf) {
          const reported = await h.streamRevision(stream);
          const expected = covered.get(stream) ?? -1;
          if (reported !== expected && reported !== -1) wrong.push(`${stream}: ${reported} (checkpoint covers ${expected})`);
        }
        expect(wrong).toEqual([]);
      }
    }

    it('two projectors inserting the same missing documents: one commits, nothing counts ahead of its checkpoint, and projecting on ends as a clean run', async () => {
      const straight = (await open()).model;
      await straight.apply(events, last(events));
      const reference = await everything(straight, appends);
      // A few rounds: which commit wins, and how the two writers' inserts interleave, is up to the store.
      for (let round = 0; round < 3; round++) {
        const { model, another } = await open();
        const other = await another();
        // Both begin at the same (empty) checkpoint, as after a lease changed hands mid-batch;
        // the second reads further, so where both write a stream, its revision is the higher.
        const shorter = await model.beginBatch();
        const longer = await other.beginBatch();
        const cut = 1_200 + round * 400;
        const further = cut + 1_500;
        await shorter.add(events.slice(0, cut));
        await longer.add(events.slice(0, further));
        const outcome = await Promise.allSettled([shorter.commit(events[cut - 1]!.position), longer.commit(events[further - 1]!.position)]);
        expect(outcome.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
        const at = await model.checkpoint();
        expect([events[cut - 1]!.position, events[further - 1]!.position]).toContain(at);
        await expectNothingAhead([model, other]);

        await inBatches(other, events.slice(events.findIndex((e) => e.position === at) + 1), events.length, 700);
        expect(await everything(model, appends)).toEqual(reference);
      }
    }, 120_000);

    it("never counts a refused batch's documents before the checkpoint covers them", async () => {
      const { model, another } = await open();
      const other = await another();
      await model.apply(events.slice(0, 400), events[399]!.position);
      const stale = await model.beginBatch();
      await other.apply(events.slice(400, 800), events[799]!.position); // the lease changed hands
      await stale.add(events.slice(400, 2_000)); // reads further than the batch that committed
      await expect(stale.commit(events[1_999]!.position)).rejects.toThrow(/checkpoint/);
      expect(await model.checkpoint()).toBe(events[799]!.position);
      await expectNothingAhead([model, other]);

      // The next batch covers what the refused one wrote ahead: every stream answers in full.
      await inBatches(other, events.slice(800), events.length, 500);
      const straight = (await open()).model;
      await straight.apply(events, last(events));
      expect(await everything(model, appends)).toEqual(await everything(straight, appends));
    }, 60_000);

    it('counts the streams a batch holds, not its events', async () => {
      const { model } = await open();
      const b = await model.beginBatch();
      expect(b.from).toBeUndefined();
      await b.add(events.slice(0, 10));
      await b.add(events.slice(0, 10)); // again: no new streams
      expect(b.streams).toBe(new Set(events.slice(0, 10).map((e) => e.stream)).size);
      await b.commit(events[9]!.position);
      expect(await model.checkpoint()).toBe(events[9]!.position);
    });
  });
}

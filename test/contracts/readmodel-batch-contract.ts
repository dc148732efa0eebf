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

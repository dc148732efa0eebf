import type { EventStore } from '../domain/ports.ts';
import type { Leases } from '../domain/ports.ts';
import type { ProjectionBatch, ProjectionStore } from '../projections/projection-store.ts';
import { withHeldHeapGrowth } from './heap-growth.ts';
import { takeLease } from './lease-holder.ts';

/**
 * Another projection the projector feeds besides the read model (the activity log, the
 * webhook fan-out): a store with its own checkpoint whose batches take the same pages.
 */
export type SideProjection = { readonly name: string; beginBatch(): Promise<ProjectionBatch> };

const LEASE = 'projector';
/** Events per read of the log. */
const PAGE = 1_000;

/**
 * When a batch is committed. A batch holds one record per stream it touched (not the
 * events), and commits once it holds `streams` of them or about `bytes` of memory in them,
 * has folded `events` events, has run `ms` milliseconds, or has read everything there is
 * (an empty page). Larger batches write a stream touched by many events once; smaller ones
 * keep the checkpoint moving.
 * `live`: the service's loop, which also commits on a page shorter than asked (the log is
 * then most likely drained: this saves a read per wake-up) and lets requests run between pages.
 */
type Window = { readonly streams: number; readonly bytes: number; readonly events: number; readonly ms: number; readonly live: boolean };
/**
 * `catchUp` (CLI commands, `sites replay`): large transactions, no one waiting on each,
 * bounded by the memory of their records. A rebuild commits a stream once per batch, and
 * every write costs more than all the folding of its events (a site's row, tags and
 * revisions against about a microsecond an event), so a replay holds every site of a log
 * in one batch while they fit: 100,000 sites of the benchmark are about 115 MB. The time
 * bound only keeps a lease renewed between batches (`sites replay` holds it 60 s).
 */
const CATCH_UP: Window = { streams: Infinity, bytes: 160 * 1024 * 1024, events: Infinity, ms: 30_000, live: false };
/** The live loop: at most a few hundred milliseconds per transaction, as its checkpoint is what read-your-writes waits on. */
const LIVE: Window = { streams: 5_000, bytes: 32 * 1024 * 1024, events: 100_000, ms: 250, live: true };
/**
 * The live loop far behind the log (its first batch after a start, which rebuilds the read
 * model after a schema change; or a batch after one that filled the live window): the
 * catch-up's bounds, still committing once it reaches the head. Small batches would not
 * bring a waiting reader its writes sooner, as they are at the head: they would only write
 * each stream once per batch instead of once.
 */
const BEHIND: Window = { ...CATCH_UP, live: true };
/**
 * A side projection reading on its own in a catch-up. Its batch holds nothing in memory
 * (it stores each page as it comes) and gains nothing from its length: bounded in events
 * and time, one window per read-model batch.
 */
const SIDE_CATCH_UP: Window = { streams: Infinity, bytes: Infinity, events: 1_000_000, ms: 10_000, live: false };

/** What one batch did (see `project`). */
type Batched = { readonly applied: number; readonly sides: number; readonly at: string | undefined; readonly full: boolean };

export type ProjectorOptions = {
  /** Identifies this process in the lease (several instances may share one read model). */
  readonly holder: string;
  readonly leaseTtlMs?: number;
  readonly onError?: (err: unknown) => void;
  /** Told when the lease was taken over from a holder that is gone (killed without releasing it). */
  readonly onTakeOver?: (from: string) => void;
  /** Streams a catch-up batch holds at most before it commits (tests make small batches with it); bounded by memory alone unless given. */
  readonly catchUpStreams?: number;
  /** About how much memory a catch-up batch's records (and the live loop's while behind) may take: 160 MiB unless given. */
  readonly catchUpBytes?: number;
  /** Projections fed with the read model, each from its own checkpoint. */
  readonly sides?: readonly SideProjection[];
};

/**
 * Runs the projections: reads events after the checkpoint and applies them to the read
 * model in batches (checkpoint committed with each batch). Exactly one process projects at
 * a time, elected through a lease in the read model; the others only wait for the read
 * model to reach their own appends, and take over when the holder's lease expires.
 */
export class Projector {
  private running = false;
  private loop: Promise<void> | undefined;
  private holding = false;
  /** Ends the loop's current pause (see `pause`), so `stop()` need not wait up to a second for it. */
  private endPause: (() => void) | undefined;
  private readonly waiters = new Set<() => void>();
  private readonly ttl: number;
  private readonly catchUpWindow: Window;
  private readonly behindWindow: Window;

  constructor(
    private readonly events: EventStore,
    private readonly readModel: ProjectionStore & Leases,
    private readonly options: ProjectorOptions,
  ) {
    this.ttl = options.leaseTtlMs ?? 5_000;
    this.catchUpWindow = { ...CATCH_UP, streams: options.catchUpStreams ?? CATCH_UP.streams, bytes: options.catchUpBytes ?? CATCH_UP.bytes };
    this.behindWindow = { ...BEHIND, bytes: options.catchUpBytes ?? BEHIND.bytes };
  }

  /** Whether this process currently holds the projector lease. */
  get isLeader(): boolean {
    return this.holding;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.endPause?.();
    await this.loop;
    if (this.holding) await this.readModel.releaseLease(LEASE, this.options.holder).catch(() => undefined);
    this.holding = false;
  }

  /**
   * Applies everything currently in the log (used by the CLI and `replay`, which run without
   * a loop). `afterBatch` runs after each committed batch: on the embedded stores a catch-up
   * never yields to timers, so work that must go on during it (renewing a lease) goes there.
   */
  async catchUp(afterBatch?: () => Promise<void>): Promise<number> {
    return withHeldHeapGrowth(async () => {
      let applied = 0;
      for (;;) {
        const { applied: n, sides } = await this.project(this.catchUpWindow);
        if (n === 0 && sides === 0) return applied;
        applied += n;
        await afterBatch?.();
      }
    });
  }

  /**
   * One batch: reads pages of the log after the checkpoint, folds them in, and commits
   * them with the position of the last event read. Returns how many events it applied to
   * the read model, how many side projections read on their own, the checkpoint it leaves,
   * and whether it stopped at a bound of its window (`full`: the log goes on). A drained
   * log commits at once, so a waiting reader is not kept waiting. `keepLease`, between
   * pages: renews the lease of a long batch; once it is lost the batch reads no more.
   *
   * The side projections whose checkpoint is the read model's take the same pages and
   * commit just before it, so once a command sees its events in the read model they are
   * in those stores too (read-your-writes holds for them). A side that is elsewhere in the
   * log (a new store filling up, one that failed a batch) reads on its own, one window per
   * batch, until it reaches the same position. A failing side is left out of the batch and
   * reported: it never stops the read model.
   */
  private async project(window: Window, keepLease?: () => Promise<boolean>): Promise<Batched> {
    const batch = await this.readModel.beginBatch();
    const sides = await this.beginSides();
    let along = sides.filter((s) => s.batch.from === batch.from);
    const apart = sides.filter((s) => s.batch.from !== batch.from);
    const started = performance.now();
    let after = batch.from;
    let applied = 0;
    let full = false;
    for (;;) {
      const page = await this.events.readAll(after, PAGE);
      if (page.length === 0) break;
      await batch.add(page);
      along = await this.eachSide(along, (b) => b.add(page));
      applied += page.length;
      after = page[page.length - 1]!.position;
      if (window.live && page.length < PAGE) break;
      full = batch.streams >= window.streams || batch.bytes >= window.bytes || applied >= window.events || performance.now() - started >= window.ms;
      if (full) break;
      if (keepLease && !(await keepLease())) break;
      if (window.live) await new Promise((r) => setImmediate(r));
    }
    let sideApplied = 0;
    for (const side of apart) sideApplied += await this.catchUpSide(side, window.live ? LIVE : SIDE_CATCH_UP);
    if (applied === 0 || after === undefined) return { applied: 0, sides: sideApplied, at: batch.from, full: false };
    const end = after;
    await this.eachSide(along, (b) => b.commit(end));
    await batch.commit(end);
    this.notify();
    return { applied, sides: sideApplied, at: end, full };
  }

  private async beginSides(): Promise<{ name: string; batch: ProjectionBatch }[]> {
    const out: { name: string; batch: ProjectionBatch }[] = [];
    for (const side of this.options.sides ?? []) {
      try {
        out.push({ name: side.name, batch: await side.beginBatch() });
      } catch (err) {
        this.options.onError?.(new Error(`${side.name} projection: ${String(err)}`));
      }
    }
    return out;
  }

  /** Runs `step` on each side batch; a side that fails is reported and dropped from the batch. */
  private async eachSide<T extends { name: string; batch: ProjectionBatch }>(sides: readonly T[], step: (b: ProjectionBatch) => Promise<void>): Promise<T[]> {
    const kept: T[] = [];
    for (const side of sides) {
      try {
        await step(side.batch);
        kept.push(side);
      } catch (err) {
        this.options.onError?.(new Error(`${side.name} projection: ${String(err)}`));
      }
    }
    return kept;
  }

  /** One window of a side projection that is not at the read model's checkpoint, from its own. */
  private async catchUpSide(side: { name: string; batch: ProjectionBatch }, window: Window): Promise<number> {
    const started = performance.now();
    let after = side.batch.from;
    let applied = 0;
    try {
      for (;;) {
        const page = await this.events.readAll(after, PAGE);
        if (page.length === 0) break;
        await side.batch.add(page);
        applied += page.length;
        after = page[page.length - 1]!.position;
        if (page.length < PAGE || applied >= window.events || performance.now() - started >= window.ms) break;
        if (window.live) await new Promise((r) => setImmediate(r));
      }
        if (applied > 0 && after !== undefined) {
        await side.batch.commit(after);
        for (const l of this.listeners) l();
      }
      return applied;
    } catch (err) {
      this.options.onError?.(new Error(`${side.name} projection: ${String(err)}`));
      return 0;
    }
  }

  /** Resolves once the read model has applied `stream` up to `revision` (read-your-writes). */
  async waitFor(stream: string, revision: number, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if ((await this.readModel.streamRevision(stream)) >= revision) return;
      if (Date.now() > deadline) throw new Error(`the read model did not reach ${stream}@${revision} within ${timeoutMs} ms`);
      // Woken by our own projector at once; otherwise poll, since another instance may project.
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.waiters.delete(done);
          resolve();
        };
        const timer = setTimeout(done, 25);
        this.waiters.add(done);
      });
    }
  }

  private notify(): void {
    for (const w of [...this.waiters]) w();
    for (const l of this.listeners) l();
  }

  private readonly listeners = new Set<() => void>();

  /** Calls `listener` after each committed batch (the webhook sender wakes on it); returns the unsubscribe. */
  onCommitted(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private async run(): Promise<void> {
    let lastRenew = 0;
    const keepLease = async (): Promise<boolean> => {
      if (!this.holding || Date.now() - lastRenew > this.ttl / 3) {
        // A predecessor killed while holding the lease is not waited out: see lease-holder.ts.
        this.holding = await takeLease(this.readModel, LEASE, this.options.holder, this.ttl, this.options.onTakeOver);
        lastRenew = Date.now();
      }
      return this.holding;
    };
    // Until a batch reaches the head, the loop is behind (see BEHIND): so it is after a start.
    let behind = true;
    while (this.running) {
      try {
        if (!(await keepLease())) {
          await this.pause(sleep(Math.min(1000, this.ttl / 3)));
          continue;
        }
        const window = behind ? this.behindWindow : LIVE;
        const batch = () => this.project(window, keepLease);
        const done: Batched = behind ? await withHeldHeapGrowth(batch) : await batch();
        const { applied, sides, at } = done;
        behind = done.full;
        if (applied > 0 || sides > 0) continue;
        await this.pause(this.events.waitForEvents(at, Math.min(1000, this.ttl / 3)));
      } catch (err) {
        this.options.onError?.(err);
        await this.pause(sleep(200));
      }
    }
  }

  /**
   * Waits for `until`, or until `stop()` is called, whichever comes first (a wait of the event
   * store left behind is released when the store closes).
   */
  private pause(until: Promise<unknown>): Promise<unknown> {
    if (!this.running) {
      until.catch(() => undefined);
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      this.endPause = () => resolve(undefined);
      until.then(resolve, reject);
    });
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

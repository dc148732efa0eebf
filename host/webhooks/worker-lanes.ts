import { Worker } from 'node:worker_threads';
import type { PreparedAttempt } from '../../app/webhooks/send.ts';
import type { AttemptRecord } from '../../projections/webhooks.ts';
import type { FromLaneWorker, LaneWorkerData, LaneWorkerStart, ToLaneWorker } from './lane-messages.ts';
import { FLUSH_MS, type LaneRun, type Lanes } from './lanes.ts';

/** Deliveries the worker may have built ahead of what a run has sent. */
const AHEAD = 64;
/** Outcomes sent back at a time (with as much credit as was used meanwhile). */
const STEP = 16;

/** The worker, and the runs open on it (a worker that fails fails only its own). */
type Live = { readonly w: Worker; readonly runs: Map<number, Run> };

type Run = {
  readonly queue: PreparedAttempt[];
  /** The worker said the lane has no more due now. */
  last: boolean;
  /** Outcomes not sent to the worker yet, and the credit used since the last step. */
  readonly outcomes: [string, AttemptRecord][];
  owed: number;
  steppedAt: number;
  /** Reading the lane failed (`next` throws it), or the worker is gone (`dead`: nothing it was sent is written). */
  error?: Error;
  dead: boolean;
  waiting?: { resolve(): void; reject(err: Error): void };
  ending?: { resolve(): void; reject(err: Error): void };
};

/**
 * Lanes run on a worker thread of their own (lane-worker.ts), so the sender's thread only
 * sends and reads answers: the worker reads each lane, builds and signs up to AHEAD of its
 * deliveries ahead of the sender, and writes the outcomes it is sent back STEP at a time (or
 * every FLUSH_MS). That work is about a third of a delivery's CPU, and the sender's thread
 * also serves the sites and the API (docs/benchmarks.md, "Webhook deliveries", third round).
 *
 * The rules are the sender's and the store's: the worker's runs are the sender's `laneRun`,
 * over a store of its own (`data.store`); an outcome it never wrote (a crash) means the
 * delivery is sent again, with the same webhook-id. A worker that fails fails its open runs
 * (the sender logs them and runs the lanes again); the next run starts a new one.
 */
export function workerLanes(data: LaneWorkerData, listenPort: () => number): Lanes {
  let worker: Live | undefined;
  let nextRun = 0;

  const fail = (run: Run, err: Error) => {
    run.error ??= err;
    run.waiting?.reject(err);
    run.waiting = undefined;
  };
  const start = (): Live => {
    const runs = new Map<number, Run>();
    const w = new Worker(workerEntry(), {
      workerData: { ...data, entry: sourceEntry } satisfies LaneWorkerStart,
      // Each run keeps only its window of deliveries: a small young generation is collected often and cheaply.
      resourceLimits: { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 64 },
    });
    w.on('message', (m: FromLaneWorker) => {
      const run = runs.get(m.run);
      if (!run) return;
      if (m.t === 'ended') {
        const ending = run.ending;
        runs.delete(m.run);
        if (m.error !== undefined) ending?.reject(new Error(m.error));
        else ending?.resolve();
        return;
      }
      run.queue.push(...m.attempts);
      if (m.last) run.last = true;
      if (m.error !== undefined) fail(run, new Error(m.error));
      const waiting = run.waiting;
      run.waiting = undefined;
      waiting?.resolve();
    });
    const gone = (err: Error) => {
      if (worker?.w === w) worker = undefined;
      for (const run of runs.values()) {
        run.dead = true;
        fail(run, err);
        run.ending?.reject(err);
      }
      runs.clear();
    };
    w.on('error', gone);
    w.on('exit', (code) => gone(new Error(`the webhook lane worker exited (${code})`)));
    // The sender's stop() ends it; it never holds the process open by itself.
    w.unref();
    return { w, runs };
  };

  const step = (w: Worker, id: number, run: Run) => {
    post(w, { t: 'step', run: id, outcomes: run.outcomes.splice(0), credit: run.owed });
    run.owed = 0;
    run.steppedAt = performance.now();
  };

  return {
    open(webhook, first): LaneRun {
      const { w, runs } = (worker ??= start());
      const id = nextRun++;
      const run: Run = { queue: [], last: false, outcomes: [], owed: 0, steppedAt: performance.now(), dead: false };
      runs.set(id, run);
      post(w, { t: 'open', run: id, webhook, first, credit: AHEAD, port: listenPort() });
      return {
        async next() {
          for (;;) {
            if (run.error) throw run.error;
            const attempt = run.queue.shift();
            if (attempt) {
              run.owed++;
              return attempt;
            }
            if (run.last) return undefined;
            await new Promise<void>((resolve, reject) => (run.waiting = { resolve, reject }));
          }
        },
        async record(deliveryId, outcome) {
          if (run.dead) throw run.error;
          run.outcomes.push([deliveryId, outcome]);
          if (run.outcomes.length >= STEP || performance.now() - run.steppedAt > FLUSH_MS) step(w, id, run);
        },
        async end() {
          if (run.dead) throw run.error;
          // The outcomes are written even when reading the lane failed: they were attempts made.
          const ended = new Promise<void>((resolve, reject) => (run.ending = { resolve, reject }));
          post(w, { t: 'end', run: id, outcomes: run.outcomes.splice(0) });
          await ended;
          if (run.error) throw run.error;
        },
      };
    },
    async close() {
      const live = worker;
      worker = undefined;
      if (!live) return;
      // The worker closes its store connection and ends; terminated if it has not within a second.
      const exited = new Promise<void>((resolve) => live.w.once('exit', () => resolve()));
      post(live.w, { t: 'close' });
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([exited, new Promise<void>((resolve) => (timer = setTimeout(resolve, 1000)))]);
      clearTimeout(timer);
      await live.w.terminate();
    },
  };
}

/**
 * The compiled build (bin/build-server.mjs) has the worker as an entry of its own beside the
 * service's; from the TypeScript sources (tests, SITES_FROM_SOURCE) a small bootstrap loads
 * it through tsx.
 */
const post = (w: Worker, m: ToLaneWorker) => w.postMessage(m);
const fromSource = import.meta.url.endsWith('.ts');
const sourceEntry = new URL('./lane-worker.ts', import.meta.url).href;
const workerEntry = () => new URL(fromSource ? './lane-worker.source.mjs' : './webhook-lanes.js', import.meta.url);

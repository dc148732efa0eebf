/**
 * The worker thread behind `workerLanes` (worker-lanes.ts): reads the lanes, builds and
 * signs their deliveries ahead of the sender, and writes the outcomes it is sent back, over a
 * delivery store of its own (its own SQLite connection or MongoDB client). Each run is a
 * `laneRun`, the same the sender runs on its own thread otherwise.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { PreparedAttempt } from '../../app/webhooks/send.ts';
import type { WebhookDeliveries } from '../../projections/webhooks.ts';
import { laneRun, type LaneRun } from './lanes.ts';
import type { LaneWorkerData, ToLaneWorker } from './lane-messages.ts';
import { webhookSiteUrls } from './site-urls.ts';

const data = workerData as LaneWorkerData;
const port = parentPort!;
const store: WebhookDeliveries =
  data.store.kind === 'sqlite'
    ? (await import('./sqlite.ts')).openSqliteWebhookDeliveries(data.store.file)
    : await (await import('./mongo.ts')).openMongoWebhookDeliveries(data.store.url);
let listenPort = 0;
const siteUrl = webhookSiteUrls(data.scheme, data.baseDomain, () => listenPort);
const deps = { webhooks: store, siteUrl, now: () => new Date() };

/** A run, the deliveries it may still build ahead (`credit`), whether its lane has ended, and the first write error it met. */
type Run = { readonly lane: LaneRun; credit: number; ended: boolean; posted: boolean; error?: string };
const runs = new Map<number, Run>();

/** Builds up to the run's credit, posting every `CHUNK` (the first at once: the sender waits for it). */
const CHUNK = 16;
async function work(id: number, run: Run): Promise<void> {
  try {
    let ready: PreparedAttempt[] = [];
    while (run.credit > 0 && !run.ended && run.error === undefined) {
      const attempt = await run.lane.next();
      if (attempt) {
        ready.push(attempt);
        run.credit--;
      } else run.ended = true;
      if (ready.length >= CHUNK || !run.posted || run.ended || run.credit === 0) {
        port.postMessage({ t: 'ready', run: id, attempts: ready, last: run.ended });
        run.posted = true;
        ready = [];
      }
    }
  } catch (err) {
    run.ended = true;
    port.postMessage({ t: 'ready', run: id, attempts: [], last: true, error: String(err) });
  }
}

async function recordAll(run: Run, outcomes: readonly (readonly [string, Parameters<LaneRun['record']>[1]])[]): Promise<void> {
  for (const [id, outcome] of outcomes) {
    try {
      await run.lane.record(id, outcome);
    } catch (err) {
      run.error ??= String(err);
    }
  }
}

/**
 * Each run's messages in the order sent (its outcomes are all taken before its end writes
 * them); runs side by side, as the sender's lanes are, so one slow store call holds only its
 * own lane. A message that fails ends its run with the error, never the worker.
 */
const chains = new Map<number, Promise<void>>();
port.on('message', (m: ToLaneWorker) => {
  if (m.t === 'close') return void close();
  const chain = (chains.get(m.run) ?? Promise.resolve())
    .then(() => handle(m))
    .catch((err: unknown) => {
      runs.delete(m.run);
      port.postMessage(m.t === 'end' ? { t: 'ended', run: m.run, error: String(err) } : { t: 'ready', run: m.run, attempts: [], last: true, error: String(err) });
    });
  chains.set(m.run, chain);
  if (m.t === 'end') void chain.then(() => chains.get(m.run) === chain && chains.delete(m.run));
});

async function handle(m: Exclude<ToLaneWorker, { t: 'close' }>): Promise<void> {
  if (m.t === 'open') {
    listenPort = m.port;
    const run: Run = { lane: laneRun(deps, m.webhook, m.first), credit: m.credit, ended: false, posted: false };
    runs.set(m.run, run);
    return work(m.run, run);
  }
  const run = runs.get(m.run);
  if (!run) {
    // Its open failed (and said so): its end is still answered, so the sender's end() settles.
    if (m.t === 'end') port.postMessage({ t: 'ended', run: m.run });
    return;
  }
  await recordAll(run, m.outcomes);
  if (m.t === 'step') {
    // A failed write stops the run at once: nothing more is sent without its outcome written.
    if (run.error !== undefined) {
      run.ended = true;
      port.postMessage({ t: 'ready', run: m.run, attempts: [], last: true, error: run.error });
      return;
    }
    run.credit += m.credit;
    return work(m.run, run);
  }
  runs.delete(m.run);
  try {
    await run.lane.end();
  } catch (err) {
    run.error ??= String(err);
  }
  port.postMessage({ t: 'ended', run: m.run, ...(run.error !== undefined ? { error: run.error } : {}) });
}

/** The sender stops: what is under way finishes, the store is closed, and the thread ends. */
async function close(): Promise<void> {
  await Promise.allSettled([...chains.values()]);
  await store.close().catch(() => undefined);
  process.exit(0);
}

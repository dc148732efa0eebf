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
    while (run.credit > 0 && !run.ended) {
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

// One message at a time, in the order sent: a run's outcomes are all taken before its end writes them.
let handled = Promise.resolve();
port.on('message', (m: ToLaneWorker) => {
  handled = handled.then(() => handle(m));
});

async function handle(m: ToLaneWorker): Promise<void> {
  if (m.t === 'open') {
    listenPort = m.port;
    const run: Run = { lane: laneRun(deps, m.webhook, m.first), credit: m.credit, ended: false, posted: false };
    runs.set(m.run, run);
    return work(m.run, run);
  }
  const run = runs.get(m.run);
  if (!run) return;
  await recordAll(run, m.outcomes);
  if (m.t === 'step') {
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

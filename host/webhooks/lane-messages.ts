import type { PreparedAttempt } from '../../app/webhooks/send.ts';
import type { AttemptRecord, DeliveryRecord, WebhookDoc } from '../../projections/webhooks.ts';
import type { PublicScheme } from './site-urls.ts';

/** Where the delivery store is: an embedded SQLite file, or a MongoDB server. */
export type WebhookStoreLocation = { readonly kind: 'sqlite'; readonly file: string } | { readonly kind: 'mongo'; readonly url: string };

/** What the lane worker opens and how it names sites (lane-worker.ts). */
export type LaneWorkerData = {
  readonly store: WebhookStoreLocation;
  readonly scheme: PublicScheme;
  readonly baseDomain: string;
};
/** What the thread is started with: the data, and the module a run from the sources loads (lane-worker.source.mjs). */
export type LaneWorkerStart = LaneWorkerData & { readonly entry: string };

type Outcomes = readonly (readonly [id: string, outcome: AttemptRecord])[];

/**
 * The sender to the worker: `open` a run (build up to `credit` ahead); `step`: outcomes to
 * write and more credit; `end`: the last outcomes, then write everything and answer `ended`;
 * `close`: close the store and end the thread.
 */
export type ToLaneWorker =
  | { readonly t: 'open'; readonly run: number; readonly webhook: WebhookDoc; readonly first: DeliveryRecord; readonly credit: number; readonly port: number }
  | { readonly t: 'step'; readonly run: number; readonly outcomes: Outcomes; readonly credit: number }
  | { readonly t: 'end'; readonly run: number; readonly outcomes: Outcomes }
  | { readonly t: 'close' };

/** The worker to the sender: deliveries ready to send (`last`: the lane has no more due now), and a run's end. */
export type FromLaneWorker =
  | { readonly t: 'ready'; readonly run: number; readonly attempts: readonly PreparedAttempt[]; readonly last: boolean; readonly error?: string }
  | { readonly t: 'ended'; readonly run: number; readonly error?: string };

import { prepareAttempt, signerFor, type PreparedAttempt, type SendDeps } from '../../app/webhooks/send.ts';
import type { AttemptRecord, DeliveryRecord, WebhookDoc } from '../../projections/webhooks.ts';

/** Deliveries a lane reads at a time. */
export const LANE_BATCH = 64;
/**
 * Outcomes a lane records in one write. A write costs about 290 µs for 16 and 780–1,000 µs
 * for 64 (12–16 µs a delivery against 18: the transaction's own cost is shared by more).
 */
export const RECORD_EVERY = 64;
/** A lane's outcomes are written at least this often while it runs (the portal shows them). */
export const FLUSH_MS = 100;

/**
 * One run of a lane as the sender sees it: the webhook's pending deliveries in log order,
 * each built and signed, and the outcomes of those sent, written behind (a few at a time).
 */
export type LaneRun = {
  /** The next delivery to send, built and signed; undefined past the lane's end or at one not due yet. */
  next(): Promise<PreparedAttempt | undefined>;
  /** The outcome of an attempt at delivery `id` (one `next` handed out), to be written (behind: `end` says when all are). */
  record(id: string, outcome: AttemptRecord): Promise<void>;
  /** Writes what is recorded and not written yet; rejects if a write failed. */
  end(): Promise<void>;
};

/** Where the sender's lanes are read, built, signed and recorded: its own thread (`inProcessLanes`) or a worker (`workerLanes`). */
export type Lanes = {
  /** A run of `webhook`'s lane from its head, `first` (read by the sender and due). */
  open(webhook: WebhookDoc, first: DeliveryRecord): LaneRun;
  close(): Promise<void>;
};

type Attempted = { readonly before: DeliveryRecord; readonly outcome: AttemptRecord };

const isDue = (d: DeliveryRecord, now: Date) => d.nextAttemptAt === undefined || Date.parse(d.nextAttemptAt) <= now.getTime();

/**
 * A lane run over the delivery store: reads the lane `LANE_BATCH` at a time, on past the
 * last key it read (the outcomes of what it read are written behind), builds and signs one
 * delivery at a time, and writes the outcomes `RECORD_EVERY` at a time or every `FLUSH_MS`.
 * Each outcome is a compare-and-set on the delivery as it was read.
 */
export function laneRun(deps: Pick<SendDeps, 'webhooks' | 'siteUrl' | 'now'>, webhook: WebhookDoc, first: DeliveryRecord | undefined): LaneRun {
  // A subscription never changes, only ends: one signer (the library's Webhook, which decodes the secret) serves the run.
  const signer = signerFor(webhook);
  /** Read and not sent yet, in log order (last first), up to the key `readTo`. */
  let queue: DeliveryRecord[] = first ? [first] : [];
  let readTo = first?.key ?? '';
  let ended = false;
  /** The deliveries handed out and not recorded, by id: what each outcome is a compare-and-set on. */
  const read = new Map<string, DeliveryRecord>();
  const done: Attempted[] = [];
  let flushedAt = performance.now();
  const flush = async () => {
    if (done.length > 0) await deps.webhooks.recordAttempts(done.splice(0));
    flushedAt = performance.now();
  };
  return {
    async next() {
      if (ended) return undefined;
      if (queue.length === 0) {
        queue = (await deps.webhooks.lane(webhook.id, LANE_BATCH, readTo)).reverse();
        readTo = queue[0]?.key ?? readTo;
      }
      const d = queue.pop();
      if (!d || !isDue(d, deps.now())) {
        ended = true;
        return undefined;
      }
      read.set(d.id, d);
      return prepareAttempt(deps, d, webhook, signer);
    },
    async record(id, outcome) {
      const before = read.get(id);
      if (!before) throw new Error(`webhook lane: ${id} was not handed out by this run`);
      read.delete(id);
      done.push({ before, outcome });
      if (done.length >= RECORD_EVERY || performance.now() - flushedAt > FLUSH_MS) await flush();
    },
    end: flush,
  };
}

/** Lanes run on the sender's own thread, over its own store. */
export function inProcessLanes(deps: Pick<SendDeps, 'webhooks' | 'siteUrl' | 'now'>): Lanes {
  return { open: (webhook, first) => laneRun(deps, webhook, first), close: async () => undefined };
}

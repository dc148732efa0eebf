import { prepareAttempt, sendPrepared, signerFor, type PreparedAttempt, type SendDeps, type Signer } from '../app/webhooks/send.ts';
import type { AttemptRecord, DeliveryRecord, WebhookDoc } from '../projections/webhooks.ts';

/** Deliveries a lane reads, and records, at a time. */
const BATCH = 64;
/** A lane's outcomes are written at least this often while it runs (the portal shows them). */
const FLUSH_MS = 100;

export type SenderOptions = {
  /** Whether this instance sends now: the projector's leader does, like every background job. */
  readonly isLeader: () => boolean;
  /** Deliveries in flight at most, one per webhook. */
  readonly maxInFlight?: number;
  /** Looks for due deliveries at least this often (another instance may have written them). */
  readonly pollMs?: number;
  readonly onError?: (err: unknown) => void;
};

export type Sender = {
  /** Look for due deliveries now (one was asked to be sent again). */
  wake(): void;
  /**
   * The projector committed a batch: new deliveries may be due, and a webhook may have been
   * deleted (the projector runs on the same leader as the sender, so every batch that can
   * delete one comes through here). Lanes look their webhook up again before their next send.
   */
  projected(): void;
  stop(): Promise<void>;
};

/**
 * The webhook sender: each webhook is a lane whose oldest pending delivery is sent, and
 * only once it succeeded or finally failed does the next one go (log order per webhook).
 * Lanes run side by side (up to `maxInFlight`), so a slow or dead receiver holds only its
 * own; sending never runs inside the projector, so it holds nothing else either. Every
 * state it acts on is in the delivery store, so a restart, a crash or another instance
 * taking over goes on from there (a delivery whose outcome was not recorded is sent again:
 * at least once, with the same `webhook-id`).
 */
export function startWebhookSender(deps: SendDeps, options: SenderOptions): Sender {
  const maxInFlight = options.maxInFlight ?? 32;
  const pollMs = options.pollMs ?? 1000;
  const busy = new Set<string>();
  const inFlight = new Set<Promise<void>>();
  let running = true;
  let woken = false;
  /** Bumped by each projected batch: a lane's copy of its webhook is good while this stays. */
  let generation = 0;
  let wakeUp: (() => void) | undefined;

  const wake = () => {
    woken = true;
    wakeUp?.();
  };

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      if (woken) return resolve();
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wakeUp = undefined;
        resolve();
      }
      wakeUp = done;
    });

  /**
   * A lane's run: sends its webhook's pending deliveries in order, reading them a batch at a
   * time, and records the outcomes a batch at a time too (write-behind: a crash before the
   * write means those are sent again, with the same webhook-id, which at-least-once allows).
   * A delivery to retry later, or one not due yet, ends the run after everything before it
   * is recorded; the loop wakes the lane when it is due. The webhook is looked up again
   * after every projected batch, so once a delete has been projected nothing more goes out.
   *
   * While a delivery is on its way, the next one is built and signed (the receiver's turn
   * leaves this process idle), so what is left between an answer and the next request is
   * the outbound client's own work. It is sent only once the one before it was answered,
   * and only if it was signed within the same second as it is sent: its `webhook-timestamp`
   * is then what signing it at that moment would have said.
   */
  const drain = async (first: DeliveryRecord): Promise<void> => {
    const id = first.webhookId;
    let webhook = await deps.webhooks.getWebhook(id);
    // The library's signer for the webhook's secret, made once per lookup (it decodes the secret).
    let signer = webhook && signerFor(webhook);
    let seen = generation;
    const done: { before: DeliveryRecord; outcome: AttemptRecord }[] = [];
    let flushedAt = performance.now();
    const flush = async () => {
      if (done.length > 0) await deps.webhooks.recordAttempts(done.splice(0));
      flushedAt = performance.now();
    };
    const due = (d: DeliveryRecord) => d.nextAttemptAt === undefined || Date.parse(d.nextAttemptAt) <= deps.now().getTime();
    let ahead: PreparedAttempt | undefined;
    const attemptAt = (delivery: DeliveryRecord, webhook: WebhookDoc, signer: Signer): PreparedAttempt => {
      const ready = ahead;
      ahead = undefined;
      if (ready?.delivery === delivery && Math.floor(ready.signedAt.getTime() / 1000) === Math.floor(deps.now().getTime() / 1000)) return ready;
      return prepareAttempt(deps, delivery, webhook, signer);
    };
    try {
      let batch: DeliveryRecord[] = [first];
      while (batch.length > 0) {
        for (let i = 0; i < batch.length; i++) {
          const delivery = batch[i]!;
          if (!running || !options.isLeader()) return;
          if (!due(delivery)) return;
          if (seen !== generation) {
            seen = generation;
            ahead = undefined;
            webhook = await deps.webhooks.getWebhook(id);
            signer = webhook && signerFor(webhook);
          }
          if (!webhook || !signer) return;
          const answer = sendPrepared(deps, attemptAt(delivery, webhook, signer));
          const next = batch[i + 1];
          if (next && due(next)) {
            // A failure is taken below, where it is awaited; meanwhile it is not an unhandled rejection.
            answer.catch(() => undefined);
            // Once the request is on its way (the client sends it after a few turns of its own), not before: that would delay it.
            await new Promise<void>((r) => setImmediate(r));
            ahead = prepareAttempt(deps, next, webhook, signer);
          }
          const outcome = await answer;
          done.push({ before: delivery, outcome });
          if (outcome.status === 'pending') return; // retried later, after a wait
          if (done.length >= BATCH || performance.now() - flushedAt > FLUSH_MS) await flush();
        }
        await flush();
        batch = await deps.webhooks.lane(id, BATCH);
      }
    } finally {
      await flush();
    }
  };

  const launch = (delivery: DeliveryRecord) => {
    busy.add(delivery.webhookId);
    const task: Promise<void> = drain(delivery)
      .then(
        () => undefined,
        (err: unknown) => options.onError?.(err),
      )
      .finally(() => {
        busy.delete(delivery.webhookId);
        inFlight.delete(task);
        wake();
      });
    inFlight.add(task);
  };

  const loop = (async () => {
    while (running) {
      woken = false;
      let waitMs = pollMs;
      try {
        if (options.isLeader()) {
          const now = deps.now().getTime();
          for (const head of await deps.webhooks.heads()) {
            if (busy.has(head.webhookId)) continue;
            const due = head.nextAttemptAt === undefined ? now : Date.parse(head.nextAttemptAt);
            if (due > now) waitMs = Math.min(waitMs, due - now);
            else if (busy.size < maxInFlight) launch(head);
          }
        }
      } catch (err) {
        options.onError?.(err);
      }
      if (running) await sleep(Math.max(waitMs, 5));
    }
  })();

  return {
    wake,
    projected() {
      generation++;
      wake();
    },
    async stop() {
      running = false;
      wake();
      await loop;
      await Promise.allSettled([...inFlight]);
    },
  };
}

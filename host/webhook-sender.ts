import { sendPrepared, signAgain, signerFor, type PreparedAttempt, type SendDeps } from '../app/webhooks/send.ts';
import type { AttemptRecord, DeliveryRecord } from '../projections/webhooks.ts';
import { inProcessLanes, type Lanes } from './webhooks/lanes.ts';

export type SenderOptions = {
  /** Whether this instance sends now: the projector's leader does, like every background job. */
  readonly isLeader: () => boolean;
  /** Deliveries in flight at most, one per webhook. */
  readonly maxInFlight?: number;
  /** Looks for due deliveries at least this often (another instance may have written them). */
  readonly pollMs?: number;
  readonly onError?: (err: unknown) => void;
  /** Where lanes are read, built, signed and recorded: by default on this thread, over `deps.webhooks`. */
  readonly lanes?: Lanes;
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
  const lanes = options.lanes ?? inProcessLanes(deps);
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
   * A lane's run: sends its webhook's pending deliveries in order, one at a time, each only
   * once the one before it was answered with a 2xx (or finally failed); one to retry later,
   * or one not due yet, ends the run, and the loop wakes the lane when it is due. The webhook
   * is looked up again after every projected batch, before the next send, so once a delete
   * has been projected nothing more goes out.
   *
   * Between an answer and the next request there is only the outbound client's own work:
   * everything else is done while a request is out, once it has been written: handing the
   * answer before it to the lane run, and taking the next delivery from it (read, built and
   * signed there: on a worker thread in the service, see `Lanes`). Outcomes are recorded
   * write-behind, a few at a time (a crash before the write means those are sent again, with
   * the same webhook-id, which at-least-once allows); a run ends only once its last request
   * is answered and every outcome is written.
   *
   * A delivery signed ahead is sent only if it was signed within the same second as it is
   * sent: its `webhook-timestamp` is then what signing it at that moment would have said.
   */
  const drain = async (first: DeliveryRecord): Promise<void> => {
    const id = first.webhookId;
    const webhook = await deps.webhooks.getWebhook(id);
    if (!webhook) return;
    // Only to sign again one signed ahead in an earlier second (the lane signs the rest).
    let signer: ReturnType<typeof signerFor> | undefined;
    let seen = generation;
    const run = lanes.open(webhook, first);
    let answered: { readonly id: string; readonly outcome: AttemptRecord } | undefined;
    let out: { readonly attempt: PreparedAttempt; readonly answer: Promise<AttemptRecord> } | undefined;
    try {
      let current = await run.next();
      while (current && running && options.isLeader()) {
        if (seen !== generation) {
          seen = generation;
          if (!(await deps.webhooks.getWebhook(id))) break;
        }
        const now = deps.now();
        if (Math.floor(current.signedAt.getTime() / 1000) !== Math.floor(now.getTime() / 1000)) current = signAgain(current, (signer ??= signerFor(webhook)), now);
        let written!: () => void;
        const sent = new Promise<void>((resolve) => (written = resolve));
        out = { attempt: current, answer: sendPrepared(deps, current, () => written()) };
        // Refused before it was sent, or failed: taken below, where the answer is awaited.
        out.answer.then(written, written);
        await sent;
        // The request is on its way: what can wait is done now (handed over once, even if the record fails).
        const before = answered;
        answered = undefined;
        if (before) await run.record(before.id, before.outcome);
        const next = await run.next();
        const outcome = await out.answer;
        answered = { id: out.attempt.delivery.id, outcome };
        out = undefined;
        if (outcome.status === 'pending') break; // retried later, after a wait: nothing goes past it
        current = next;
      }
    } finally {
      // Never two requests of one webhook out at once: a run that ends early still waits for its last answer.
      const last = out && (await out.answer.catch(() => undefined));
      try {
        if (answered) await run.record(answered.id, answered.outcome);
        if (out && last) await run.record(out.attempt.delivery.id, last);
      } finally {
        // Always ended, so the lane's host lets go of the run (its error, if any, is the run's).
        await run.end();
      }
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
      await lanes.close();
    },
  };
}

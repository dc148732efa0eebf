import { sendDelivery, type SendDeps } from '../app/webhooks/send.ts';

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
  /** Look for due deliveries now (new ones were projected, one was asked to be sent again). */
  wake(): void;
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

  const launch = (delivery: Parameters<typeof sendDelivery>[1]) => {
    busy.add(delivery.webhookId);
    const task: Promise<void> = sendDelivery(deps, delivery)
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
    async stop() {
      running = false;
      wake();
      await loop;
      await Promise.allSettled([...inFlight]);
    },
  };
}

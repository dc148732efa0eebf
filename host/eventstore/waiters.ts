/**
 * The sleeping side of `EventStore.waitForEvents`, shared by the adapters: callers park
 * here until the adapter reports a newer head of the log, their timeout fires, or the
 * store closes. Each adapter decides how it learns about the head (in-process appends,
 * polling, a server subscription) and how its positions compare.
 */
export type Waiters<P> = {
  /** Parks until `notify` reports a head newer than `after`, or `timeoutMs` elapses. */
  wait(after: P | undefined, timeoutMs: number): Promise<void>;
  /** Reports the newest known head; wakes every waiter it is newer for. */
  notify(head: P): void;
  /** The positions parked callers wait beyond (for a catch-up look at the log). */
  pending(): (P | undefined)[];
  /** Number of parked callers: adapters only poll or subscribe while it is above zero. */
  readonly size: number;
  /** Wakes everybody (used by `close`). */
  releaseAll(): void;
};

type Parked<P> = { after: P | undefined; resolve: () => void; timer: NodeJS.Timeout };

/** `isNewer(head, after)`: true when the log holds events after `after` once it reaches `head`. */
export function createWaiters<P>(isNewer: (head: P, after: P | undefined) => boolean): Waiters<P> {
  const parked = new Set<Parked<P>>();
  const release = (p: Parked<P>): void => {
    clearTimeout(p.timer);
    parked.delete(p);
    p.resolve();
  };
  return {
    wait(after, timeoutMs) {
      return new Promise<void>((resolve) => {
        const p: Parked<P> = { after, resolve, timer: undefined as unknown as NodeJS.Timeout };
        p.timer = setTimeout(() => release(p), Math.max(0, timeoutMs));
        parked.add(p);
      });
    },
    notify(head) {
      for (const p of [...parked]) if (isNewer(head, p.after)) release(p);
    },
    pending() {
      return [...parked].map((p) => p.after);
    },
    get size() {
      return parked.size;
    },
    releaseAll() {
      for (const p of [...parked]) release(p);
    },
  };
}

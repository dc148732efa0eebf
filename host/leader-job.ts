import type { Logger } from './log.ts';

/** What a leader job needs of the service: whether this instance leads, and where failures go. */
export type LeaderJobHost = { readonly projector: { readonly isLeader: boolean }; readonly log: Logger };

/**
 * Runs `work` every `everyMs` on the projector leader only (one instance does the
 * background work of a cluster), never two ticks at once; a failure is logged as `name`
 * and the next tick tries again. Returns the stop function.
 */
export function startLeaderJob(service: LeaderJobHost, name: string, everyMs: number, work: () => Promise<void>): () => void {
  let busy = false;
  const tick = async () => {
    if (busy || !service.projector.isLeader) return;
    busy = true;
    try {
      await work();
    } catch (err) {
      service.log.error(`${name} failed`, { error: String(err) });
    } finally {
      busy = false;
    }
  };
  const timer = setInterval(tick, everyMs);
  timer.unref();
  void tick();
  return () => clearInterval(timer);
}

import { expireUnusedClients } from '../app/jobs/expire-unused-clients.ts';
import type { Service } from './service.ts';

/**
 * Ends OAuth client registrations never used for a consent once they are 24 hours old
 * (spec §2), as the system actor; runs on the projector leader only, like the quarantine
 * job. The authorization endpoint already refuses such a client from its 24th hour on;
 * this job is what frees its read-model document.
 */
export function startOAuthClientExpiryJob(service: Service, everyMs = 5 * 60_000): () => void {
  let busy = false;
  const tick = async () => {
    if (busy || !service.projector.isLeader) return;
    busy = true;
    try {
      const expired = await expireUnusedClients(service.deps, service.deps.now());
      if (expired.length > 0) service.log.info('expired unused OAuth client registrations', { count: expired.length });
    } catch (err) {
      service.log.error('OAuth client expiry job failed', { error: String(err) });
    } finally {
      busy = false;
    }
  };
  const timer = setInterval(tick, everyMs);
  timer.unref();
  void tick();
  return () => clearInterval(timer);
}

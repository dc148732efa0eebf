import { expireUnusedClients } from '../app/jobs/expire-unused-clients.ts';
import { systemIdentity } from '../domain/auth.ts';
import { startLeaderJob } from './leader-job.ts';
import type { Service } from './service.ts';

/**
 * Ends OAuth client registrations never used for a consent once they are 24 hours old
 * (spec §2), as the system actor; runs on the projector leader only, like the quarantine
 * job. The authorization endpoint already refuses such a client from its 24th hour on;
 * this job is what frees its read-model document.
 */
export function startOAuthClientExpiryJob(service: Service, everyMs = 5 * 60_000): () => void {
  return startLeaderJob(service, 'OAuth client expiry job', everyMs, async () => {
    const expired = await expireUnusedClients(service.deps, systemIdentity('oauth-client-expiry'), { now: service.deps.now() });
    if (expired.length > 0) service.log.info('expired unused OAuth client registrations', { count: expired.length });
  });
}

import { collectExpiredDeploys } from '../app/jobs/gc.ts';
import { systemIdentity } from '../domain/auth.ts';
import { startLeaderJob } from './leader-job.ts';
import type { Service } from './service.ts';

/**
 * Ends incremental deploys whose time is over (spec §10: an unpublished deploy expires
 * after an hour) and collects the uploads nothing else references; runs on the projector
 * leader only, like the quarantine job, often enough for a short SITES_DEPLOY_TTL.
 */
export function startDeployExpiryJob(service: Service, everyMs = Math.min(60_000, Math.max(500, service.config.deployTtlMs / 4))): () => void {
  return startLeaderJob(service, 'deploy expiry job', everyMs, async () => {
    const { deploys, deleted } = await collectExpiredDeploys(service.deps, systemIdentity('deploy-expiry'));
    if (deploys > 0) service.log.info('ended expired deploys', { deploys, deleted });
  });
}

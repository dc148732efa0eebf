import { expirePreviews } from '../app/jobs/expire-previews.ts';
import { systemIdentity } from '../domain/auth.ts';
import { startLeaderJob } from './leader-job.ts';
import type { Service } from './service.ts';

/**
 * Removes previews whose time is over (spec §14: SITES_PREVIEW_TTL after their last publish)
 * with `PreviewExpired`, and collects the files only they held; runs on the projector leader
 * only, like the quarantine job, often enough for a short TTL (tests, demos).
 */
export function startPreviewExpiryJob(service: Service, everyMs = Math.min(60_000, Math.max(500, service.config.previews.ttlMs / 4))): () => void {
  return startLeaderJob(service, 'preview expiry job', everyMs, async () => {
    const expired = await expirePreviews(service.deps, systemIdentity('preview-expiry'));
    if (expired.length > 0) service.log.info('expired previews', { previews: expired });
  });
}

import type { Identity } from '../../domain/auth.ts';
import { ConflictError } from '../../domain/errors.ts';
import { siteCommands } from '../aggregates.ts';
import { requireAdmin } from '../authorize.ts';
import type { AppDeps } from '../deps.ts';
import { collectDropped, type DroppedRevision } from './gc.ts';

/** Candidate sites read from the read model at a time. */
const EXPIRY_BATCH = 100;

/**
 * The preview expiry job (spec §14), run by the leader as the system: every preview whose
 * `expiresAt` has come by now is removed with `PreviewExpired`, on a live site or one in the
 * trash, and the files only it held are collected. The read model proposes the sites; each
 * is decided on its own stream, so a preview published again meanwhile (a new expiry) stays.
 * Returns the expired previews as `path:name`.
 */
export async function expirePreviews(deps: AppDeps, identity: Identity): Promise<string[]> {
  requireAdmin(identity);
  const expired: string[] = [];
  for (;;) {
    const now = deps.now().toISOString();
    const batch = await deps.queries.listSitesWithExpiredPreviews(now, EXPIRY_BATCH);
    let progressed = false;
    for (const site of batch) {
      const address = { group: site.group, slug: site.slug };
      let dropped: DroppedRevision[] = [];
      try {
        const { events } = await siteCommands(deps).handle(address, identity.actor, { type: 'ExpirePreviews', address, now });
        for (const e of events) {
          if (e.type !== 'PreviewExpired') continue;
          expired.push(`${site.path}:${e.data.name}`);
          dropped.push({ manifest: e.data.manifest, ...(e.data.favicon ? { favicon: e.data.favicon } : {}) });
        }
      } catch (err) {
        // Lost the race twice to a publish of the site: the next run tries again.
        if (!(err instanceof ConflictError)) throw err;
        dropped = [];
      }
      if (dropped.length > 0) {
        progressed = true;
        await collectDropped(deps, dropped);
      }
    }
    // A full batch that expired nothing would come back the same: stop rather than spin.
    if (batch.length < EXPIRY_BATCH || !progressed) return expired;
  }
}

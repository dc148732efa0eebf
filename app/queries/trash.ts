import type { Identity } from '../../domain/auth.ts';
import { requireAdmin } from '../authorize.ts';
import type { TrashResponse } from '../contract/site.ts';
import type { AppDeps } from '../deps.ts';

/**
 * `GET /api/sites/deleted` (spec §5, admins): the trash, most recently deleted first, each
 * with when the quarantine job purges it (it runs every minute or so, so at most that much later).
 */
export async function listTrash(deps: AppDeps, identity: Identity): Promise<TrashResponse> {
  requireAdmin(identity);
  const sites = await deps.queries.listQuarantined();
  const purgeAt = (deletedAt: string) => new Date(Date.parse(deletedAt) + deps.settings.deletedSiteTtlMs).toISOString();
  return {
    sites: sites.map((d) => ({ ...deps.shapes.site(d, identity), ...(d.deletedAt ? { purge_at: purgeAt(d.deletedAt) } : {}) })),
    count: sites.length,
  };
}

import Router from '@koa/router';
import { revisionDiff, serviceStorage } from '../app/queries/storage.ts';
import { visibleSite } from '../app/queries/sites.ts';
import { requireAdmin, requireUser } from './auth.ts';
import type { ApiContext } from './context.ts';
import type { RevisionDiff, ServiceStorage } from './schemas/audit.ts';
import { param, sitePathParam, siteRoute } from './site-path.ts';

/**
 * The audit views' reads: any two revisions of a site compared (spec §12), and what the
 * whole service's retained revisions cost against what the store holds. Registered before
 * the management router, whose `/api/sites/*path` would otherwise claim the diff path.
 */
export function auditRouter(api: ApiContext): Router {
  const r = new Router();

  siteRoute(r, 'GET', '/api/sites/*path/revisions/:rev/diff/:to', async (ctx) => {
    const identity = await requireUser(api, ctx);
    const site = await visibleSite(api.deps, identity, sitePathParam(ctx));
    const d = await revisionDiff(site, param(ctx, 'rev'), param(ctx, 'to'), api.manifests);
    ctx.body = {
      from: d.from,
      to: d.to,
      added: d.added,
      removed: d.removed,
      changed: d.changed,
      unchanged: d.unchanged,
      bytes_added: d.bytesAdded,
      bytes_removed: d.bytesRemoved,
    } satisfies RevisionDiff;
  });

  r.get('/api/storage', async (ctx) => {
    await requireAdmin(api, ctx);
    ctx.body = (await serviceStorage(api.deps.queries, api.manifests)) satisfies ServiceStorage;
  });

  return r;
}

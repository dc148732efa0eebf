import Router from '@koa/router';
import { revisionDiff } from '../app/queries/revision-diff.ts';
import { serviceStorage } from '../app/queries/service-storage.ts';
import { requireUser } from './auth.ts';
import type { ApiContext } from './context.ts';
import { param, sitePath, siteRoute } from './site-path.ts';

/**
 * The audit views' reads: any two revisions of a site compared (spec §12), and what the
 * whole service's retained revisions cost against what the store holds. Registered before
 * the management router, whose `/api/sites/*path` would otherwise claim the diff path.
 */
export function auditRouter(api: ApiContext): Router {
  const r = new Router();

  siteRoute(r, 'GET', '/api/sites/*path/revisions/:rev/diff/:to', async (ctx) => {
    ctx.body = await revisionDiff(api.deps, await requireUser(api, ctx), { site: sitePath(ctx), from: param(ctx, 'rev'), to: param(ctx, 'to') });
  });

  r.get('/api/storage', async (ctx) => {
    ctx.body = await serviceStorage(api.deps, await requireUser(api, ctx));
  });

  return r;
}

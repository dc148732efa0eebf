import Router from '@koa/router';
import { attachDomain } from '../app/domains/attach.ts';
import { detachDomain } from '../app/domains/detach.ts';
import { looksLikeDomain } from '../domain/custom-domain/name.ts';
import { requireUser } from './auth.ts';
import type { ApiContext } from './context.ts';
import { param, sitePath, siteRoute } from './site-path.ts';
import { noteWrite } from './write-log.ts';

/**
 * Custom domains over HTTP (spec §15, admins): `PUT` attaches one to a site, `DELETE`
 * detaches it. Mounted before the management router: `DELETE /api/sites/docs/domains/x`
 * (no dot in the last segment) is not a domain but the unpublish of the site
 * `docs/domains/x`, so it is passed on to that route.
 */
export function domainsRouter(api: ApiContext): Router {
  const r = new Router();
  siteRoute(r, 'PUT', '/api/sites/*path/domains/:domain', async (ctx) => {
    const identity = await requireUser(api, ctx);
    const domain = param(ctx, 'domain');
    noteWrite(ctx, { site: sitePath(ctx), target: `domain:${domain.slice(0, 253)}` });
    ctx.body = await attachDomain(api.deps, identity, { site: sitePath(ctx), domain });
  });
  siteRoute(r, 'DELETE', '/api/sites/*path/domains/:domain', async (ctx, next) => {
    const domain = param(ctx, 'domain');
    if (!looksLikeDomain(domain)) return next();
    const identity = await requireUser(api, ctx);
    noteWrite(ctx, { site: sitePath(ctx), target: `domain:${domain.slice(0, 253)}` });
    await detachDomain(api.deps, identity, { site: sitePath(ctx), domain });
    ctx.status = 204;
  });
  return r;
}

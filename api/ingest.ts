import Router from '@koa/router';
import { purgeSite, patchSite, restoreSite, rollbackSite, unpublishSite } from '../app/site-lifecycle/lifecycle.ts';
import { siteStorage } from '../app/queries/storage.ts';
import { revisionsOf } from '../app/queries/sites.ts';
import { authorize } from '../domain/auth.ts';
import { NotFoundError } from '../domain/errors.ts';
import { fullPath } from '../domain/paths.ts';
import { requireKey } from './auth.ts';
import { readJson } from './bodies.ts';
import type { ApiContext } from './context.ts';
import { noteWrite } from './write-log.ts';
import { handlePublishRequestFor } from './publish-route.ts';
import { parsePatch, parseRollback } from './requests.ts';
import { sitePathParam, siteRoute } from './site-path.ts';
import { revisionJson, siteJson } from './site-json.ts';
import type { RevisionsResponse } from './schemas/revision.ts';

/**
 * The ingest plane (spec §4): API keys only; every route checks the capability on the
 * requested path before the site is looked up, so a refusal never reveals existence.
 */
export function ingestRouter(api: ApiContext): Router {
  const r = new Router();

  r.post('/ingest/sites', async (ctx) => {
    const identity = await requireKey(api, ctx);
    ctx.body = await handlePublishRequestFor(api, ctx, identity);
  });

  siteRoute(r, 'GET', '/ingest/sites/*path/revisions', async (ctx) => {
    const identity = await requireKey(api, ctx);
    const address = sitePathParam(ctx);
    authorize(identity, 'rollback', address);
    const site = await api.deps.readModel.getSite(fullPath(address));
    if (!site || site.status !== 'live') throw new NotFoundError(`no site ${fullPath(address)}`);
    ctx.body = { revisions: revisionsOf(site).map((r) => revisionJson(r.info, r.current)), ...(await siteStorage(site, api.manifests)) } satisfies RevisionsResponse;
  });

  siteRoute(r, 'POST', '/ingest/sites/*path/rollback', async (ctx) => {
    const identity = await requireKey(api, ctx);
    const address = sitePathParam(ctx);
    authorize(identity, 'rollback', address);
    const site = await rollbackSite(api.deps, identity, address, parseRollback(await readJson(ctx)));
    noteWrite(ctx, { revision: site.live.id });
    ctx.body = siteJson(api, site, identity);
  });

  siteRoute(r, 'POST', '/ingest/sites/*path/restore', async (ctx) => {
    const identity = await requireKey(api, ctx);
    ctx.body = siteJson(api, await restoreSite(api.deps, identity, sitePathParam(ctx)), identity);
  });

  siteRoute(r, 'POST', '/ingest/sites/*path/purge', async (ctx) => {
    const identity = await requireKey(api, ctx);
    await purgeSite(api.deps, identity, sitePathParam(ctx));
    ctx.status = 204;
  });

  siteRoute(r, 'PATCH', '/ingest/sites/*path', async (ctx) => {
    const identity = await requireKey(api, ctx);
    const address = sitePathParam(ctx);
    authorize(identity, 'patch', address);
    ctx.body = siteJson(api, await patchSite(api.deps, identity, address, parsePatch(await readJson(ctx))), identity);
  });

  siteRoute(r, 'DELETE', '/ingest/sites/*path', async (ctx) => {
    const identity = await requireKey(api, ctx);
    await unpublishSite(api.deps, identity, sitePathParam(ctx));
    ctx.status = 204;
  });

  return r;
}

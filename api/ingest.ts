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
import { handlePublishRequestFor } from './publish-route.ts';
import { parsePatch, parseRollback } from './requests.ts';
import { addressParam, capture } from './site-path.ts';
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

  r.get(/^\/ingest\/sites\/(.+)\/revisions$/, async (ctx) => {
    const identity = await requireKey(api, ctx);
    const address = addressParam(capture(ctx, 0));
    authorize(identity, 'rollback', address);
    const site = await api.deps.readModel.getSite(fullPath(address));
    if (!site || site.status !== 'live') throw new NotFoundError(`no site ${fullPath(address)}`);
    ctx.body = { revisions: revisionsOf(site).map((r) => revisionJson(r.info, r.current)), ...(await siteStorage(site, api.manifests)) } satisfies RevisionsResponse;
  });

  r.post(/^\/ingest\/sites\/(.+)\/rollback$/, async (ctx) => {
    const identity = await requireKey(api, ctx);
    const address = addressParam(capture(ctx, 0));
    authorize(identity, 'rollback', address);
    ctx.body = siteJson(api, await rollbackSite(api.deps, identity, address, parseRollback(await readJson(ctx))));
  });

  r.post(/^\/ingest\/sites\/(.+)\/restore$/, async (ctx) => {
    const identity = await requireKey(api, ctx);
    ctx.body = siteJson(api, await restoreSite(api.deps, identity, addressParam(capture(ctx, 0))));
  });

  r.post(/^\/ingest\/sites\/(.+)\/purge$/, async (ctx) => {
    const identity = await requireKey(api, ctx);
    await purgeSite(api.deps, identity, addressParam(capture(ctx, 0)));
    ctx.status = 204;
  });

  r.patch(/^\/ingest\/sites\/(.+)$/, async (ctx) => {
    const identity = await requireKey(api, ctx);
    const address = addressParam(capture(ctx, 0));
    authorize(identity, 'patch', address);
    ctx.body = siteJson(api, await patchSite(api.deps, identity, address, parsePatch(await readJson(ctx))));
  });

  r.delete(/^\/ingest\/sites\/(.+)$/, async (ctx) => {
    const identity = await requireKey(api, ctx);
    await unpublishSite(api.deps, identity, addressParam(capture(ctx, 0)));
    ctx.status = 204;
  });

  return r;
}

import Router from '@koa/router';
import { parseInput } from '../app/contract/parse.ts';
import { SitePatch } from '../app/contract/patch.ts';
import { RollbackBody } from '../app/contract/rollback.ts';
import { listPreviews } from '../app/previews/list-previews.ts';
import { meansSite } from '../app/previews/route-reading.ts';
import { listRevisions } from '../app/queries/revisions.ts';
import { patchSite } from '../app/site-lifecycle/patch.ts';
import { purgeSite } from '../app/site-lifecycle/purge.ts';
import { restoreSite } from '../app/site-lifecycle/restore.ts';
import { rollbackSite } from '../app/site-lifecycle/rollback.ts';
import { unpublishSite } from '../app/site-lifecycle/unpublish.ts';
import { requireKey } from './auth.ts';
import { readJson } from './bodies.ts';
import type { ApiContext } from './context.ts';
import { deletePreviewOrSite } from './preview-delete.ts';
import { noteWrite } from './write-log.ts';
import { handlePublishRequest } from './multipart.ts';
import { handlePreviewRequest } from './preview-upload.ts';
import { param, sitePath, siteRoute } from './site-path.ts';

/**
 * The ingest plane (spec §4): API keys only. Each route authenticates the key and hands the
 * path to its use case (app/), with the body as a function that reads and parses it: the use
 * case checks the capability on the path first, then asks for the body, then looks the site
 * up. So a refusal (403) never depends on the body and never reveals whether the site exists.
 */
export function ingestRouter(api: ApiContext): Router {
  const r = new Router();

  r.post('/ingest/sites', async (ctx) => {
    ctx.body = await handlePublishRequest(api, ctx, await requireKey(api, ctx));
  });

  // Previews (spec §14): capability preview (publish implies it); registered before the bare site routes.
  siteRoute(r, 'PUT', '/ingest/sites/*path/previews/:name', async (ctx) => {
    const identity = await requireKey(api, ctx);
    noteWrite(ctx, { target: `preview:${param(ctx, 'name')}` });
    const result = await handlePreviewRequest(api, ctx, identity, sitePath(ctx), param(ctx, 'name'));
    noteWrite(ctx, { revision: result.preview.revision });
    ctx.body = result;
  });

  siteRoute(r, 'GET', '/ingest/sites/*path/previews', async (ctx) => {
    ctx.body = await listPreviews(api.deps, await requireKey(api, ctx), { site: sitePath(ctx) });
  });

  siteRoute(r, 'DELETE', '/ingest/sites/*path/previews/:name', async (ctx) => deletePreviewOrSite(api, ctx, await requireKey(api, ctx)));

  siteRoute(r, 'GET', '/ingest/sites/*path/revisions', async (ctx) => {
    ctx.body = await listRevisions(api.deps, await requireKey(api, ctx), { site: sitePath(ctx) });
  });

  siteRoute(r, 'POST', '/ingest/sites/*path/rollback', async (ctx) => {
    const identity = await requireKey(api, ctx);
    const body = async () => parseInput(RollbackBody, await readJson(ctx))?.revision;
    const { site, revision } = await rollbackSite(api.deps, identity, { site: sitePath(ctx), revision: body });
    noteWrite(ctx, { revision });
    ctx.body = site;
  });

  siteRoute(r, 'POST', '/ingest/sites/*path/restore', async (ctx) => {
    ctx.body = await restoreSite(api.deps, await requireKey(api, ctx), { site: sitePath(ctx) });
  });

  siteRoute(r, 'POST', '/ingest/sites/*path/purge', async (ctx) => {
    await purgeSite(api.deps, await requireKey(api, ctx), { site: sitePath(ctx) });
    ctx.status = 204;
  });

  siteRoute(r, 'PATCH', '/ingest/sites/*path', async (ctx) => {
    const identity = await requireKey(api, ctx);
    ctx.body = await patchSite(api.deps, identity, { site: sitePath(ctx), patch: async () => parseInput(SitePatch, await readJson(ctx)) });
  });

  siteRoute(r, 'DELETE', '/ingest/sites/*path', async (ctx) => {
    await unpublishSite(api.deps, await requireKey(api, ctx), { site: sitePath(ctx) });
    ctx.status = 204;
  });

  return r;
}

import Router from '@koa/router';
import { FileQuery } from '../app/contract/params.ts';
import { parseInput, parseQuery } from '../app/contract/parse.ts';
import { SitePatch } from '../app/contract/patch.ts';
import { RollbackBody } from '../app/contract/rollback.ts';
import { SiteQueryParams } from '../app/contract/site-query.ts';
import { siteFavicon } from '../app/queries/favicon.ts';
import { getSite } from '../app/queries/get-site.ts';
import { listSites } from '../app/queries/list-sites.ts';
import { me } from '../app/queries/me.ts';
import { revisionArchive, revisionFile, revisionFiles } from '../app/queries/revision-files.ts';
import { listRevisions } from '../app/queries/revisions.ts';
import { siteEvents } from '../app/queries/site-events.ts';
import { listTrash } from '../app/queries/trash.ts';
import { patchSite } from '../app/site-lifecycle/patch.ts';
import { purgeSite } from '../app/site-lifecycle/purge.ts';
import { restoreSite } from '../app/site-lifecycle/restore.ts';
import { rollbackSite } from '../app/site-lifecycle/rollback.ts';
import { unpublishSite } from '../app/site-lifecycle/unpublish.ts';
import { requireUser } from './auth.ts';
import { readJson } from './bodies.ts';
import type { ApiContext } from './context.ts';
import { deletePreviewOrSite } from './preview-delete.ts';
import { noteWrite } from './write-log.ts';
import { handlePublishRequest } from './multipart.ts';
import { mountOpenApi } from './openapi/route.ts';
import { streamRevisionZip } from './revision-zip.ts';
import { inertPublisherBytes } from './security-headers.ts';
import { param, sitePath, siteRoute } from './site-path.ts';
import { sendListing } from './listing-answer.ts';
import { listPreviews } from '../app/previews/list-previews.ts';
import { meansSite } from '../app/previews/route-reading.ts';

/**
 * The management plane (spec §5): forward-auth users and keys (an admin key acts as an
 * admin, a scoped key as a viewer). Each route authenticates and hands the request to its use
 * case (app/), a body as a function the use case calls once it has authorized (403 before
 * 400). The use case decides what the identity may do: reads for anyone signed in, writes for
 * admins.
 */
export function managementRouter(api: ApiContext): Router {
  const r = new Router();

  mountOpenApi(r, { forwardAuthHeader: api.config?.forwardAuthHeader, mcpEnabled: api.config?.mcp.enabled });

  r.get('/api/me', async (ctx) => {
    ctx.body = await me(api.deps, await requireUser(api, ctx));
  });

  r.get('/api/sites', async (ctx) => {
    const identity = await requireUser(api, ctx);
    const answer = await listSites(api.deps, identity, parseQuery(SiteQueryParams, ctx.query));
    await sendListing(ctx, answer); // SitesResponse, serialized
  });

  r.post('/api/sites', async (ctx) => {
    ctx.body = await handlePublishRequest(api, ctx, await requireUser(api, ctx));
  });

  // The trash. Registered before `/api/sites/*path` so `deleted` is never read as a slug.
  r.get('/api/sites/deleted', async (ctx) => {
    ctx.body = await listTrash(api.deps, await requireUser(api, ctx));
  });
  siteRoute(r, 'POST', '/api/sites/deleted/*path', async (ctx) => {
    ctx.body = await restoreSite(api.deps, await requireUser(api, ctx), { site: sitePath(ctx) });
  });
  siteRoute(r, 'DELETE', '/api/sites/deleted/*path', async (ctx) => {
    await purgeSite(api.deps, await requireUser(api, ctx), { site: sitePath(ctx) });
    ctx.status = 204;
  });

  siteRoute(r, 'GET', '/api/sites/*path/favicon', async (ctx) => {
    const { type, stream } = await siteFavicon(api.deps, await requireUser(api, ctx), { site: sitePath(ctx) });
    ctx.type = type;
    ctx.set('Cache-Control', 'public, max-age=3600');
    inertPublisherBytes(ctx);
    ctx.body = stream;
  });

  siteRoute(r, 'GET', '/api/sites/*path/revisions', async (ctx) => {
    ctx.body = await listRevisions(api.deps, await requireUser(api, ctx), { site: sitePath(ctx) });
  });

  siteRoute(r, 'GET', '/api/sites/*path/revisions/:rev/files', async (ctx) => {
    ctx.body = await revisionFiles(api.deps, await requireUser(api, ctx), { site: sitePath(ctx), revision: param(ctx, 'rev') });
  });

  siteRoute(r, 'GET', '/api/sites/*path/revisions/:rev/file', async (ctx) => {
    const identity = await requireUser(api, ctx);
    const { path } = parseQuery(FileQuery, ctx.query);
    const file = await revisionFile(api.deps, identity, { site: sitePath(ctx), revision: param(ctx, 'rev'), path });
    // A download, never a resource: with its stored type (text/javascript, text/html…) a
    // `<script src>` or a frame on the apex could run a publisher's file with the apex's origin.
    ctx.type = 'application/octet-stream';
    ctx.length = file.size;
    ctx.set('Content-Disposition', `attachment; filename="${file.name.replace(/[^\x20-\x7e]|["\\]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(file.name)}`);
    inertPublisherBytes(ctx);
    ctx.body = file.stream;
  });

  siteRoute(r, 'GET', '/api/sites/*path/revisions/:rev/archive', async (ctx) => {
    const archive = await revisionArchive(api.deps, await requireUser(api, ctx), { site: sitePath(ctx), revision: param(ctx, 'rev') });
    ctx.type = 'application/zip';
    ctx.set('Content-Disposition', `attachment; filename="${archive.filename}"`);
    inertPublisherBytes(ctx);
    ctx.body = streamRevisionZip(archive.open, archive.manifest, archive.date);
  });

  // Each also names a site whose slug or last group label is `previews` (see meansSite).
  siteRoute(r, 'GET', '/api/sites/*path/previews', async (ctx) => {
    const identity = await requireUser(api, ctx);
    const whole = `${sitePath(ctx)}/previews`;
    if (await meansSite(api.deps, identity, { path: whole }, sitePath(ctx))) ctx.body = await getSite(api.deps, identity, { site: whole });
    else ctx.body = await listPreviews(api.deps, identity, { site: sitePath(ctx) });
  });
  siteRoute(r, 'DELETE', '/api/sites/*path/previews/:name', async (ctx) => deletePreviewOrSite(api, ctx, await requireUser(api, ctx)));

  siteRoute(r, 'GET', '/api/sites/*path/events', async (ctx) => {
    ctx.body = await siteEvents(api.deps, await requireUser(api, ctx), { site: sitePath(ctx) });
  });

  siteRoute(r, 'POST', '/api/sites/*path/rollback', async (ctx) => {
    const identity = await requireUser(api, ctx);
    const body = async () => parseInput(RollbackBody, await readJson(ctx))?.revision;
    const { site, revision } = await rollbackSite(api.deps, identity, { site: sitePath(ctx), revision: body });
    noteWrite(ctx, { revision });
    ctx.body = site;
  });

  siteRoute(r, 'GET', '/api/sites/*path', async (ctx) => {
    ctx.body = await getSite(api.deps, await requireUser(api, ctx), { site: sitePath(ctx) });
  });
  siteRoute(r, 'PATCH', '/api/sites/*path', async (ctx) => {
    const identity = await requireUser(api, ctx);
    ctx.body = await patchSite(api.deps, identity, { site: sitePath(ctx), patch: async () => parseInput(SitePatch, await readJson(ctx)) });
  });
  siteRoute(r, 'DELETE', '/api/sites/*path', async (ctx) => {
    await unpublishSite(api.deps, await requireUser(api, ctx), { site: sitePath(ctx) });
    ctx.status = 204;
  });

  return r;
}

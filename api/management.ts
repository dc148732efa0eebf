import Router from '@koa/router';
import { isAdmin } from '../domain/auth.ts';
import { handlePublishRequestFor } from './publish-route.ts';
import { findRevision, revisionsOf, visibleSite } from '../app/queries/sites.ts';
import { siteStorage } from '../app/queries/storage.ts';
import { patchSite, purgeSite, restoreSite, rollbackSite, unpublishSite } from '../app/site-lifecycle/lifecycle.ts';
import { NotFoundError } from '../domain/errors.ts';
import { faviconType } from '../domain/favicon.ts';
import { fileTree } from '../domain/file-tree.ts';
import { revisionTime } from '../domain/revision-id.ts';
import { fullPath } from '../domain/paths.ts';
import { siteStream } from '../domain/streams.ts';
import { SiteListCache } from '../app/queries/site-list-cache.ts';
import { requireAdmin, requireUser } from './auth.ts';
import { readJson } from './bodies.ts';
import type { ApiContext } from './context.ts';
import { noteWrite } from './write-log.ts';
import { parsePatch, parseRollback } from './requests.ts';
import { streamRevisionZip } from './revision-zip.ts';
import { param, sitePathParam, siteRoute } from './site-path.ts';
import { parseSiteQuery } from './site-query.ts';
import { mountOpenApi } from './openapi/route.ts';
import { FileQuery } from './schemas/params.ts';
import { parseQuery } from './schemas/parse.ts';
import type { EventsResponse } from './schemas/events.ts';
import type { FileNode } from './schemas/file-tree.ts';
import type { Me } from './schemas/me.ts';
import type { RevisionsResponse } from './schemas/revision.ts';
import type { TrashResponse } from './schemas/site.ts';
import { inertPublisherBytes } from './security-headers.ts';
import { revisionJson, siteJson, siteListBody, siteUrlProbe } from './site-json.ts';

/** Bytes of listing bodies kept (a listing of 10,000 sites is about 3 MB). */
const LISTING_CACHE_BYTES = 64 * 1024 * 1024;

/** The management plane (spec §5): forward-auth users and keys; admin-only writes. */
export function managementRouter(api: ApiContext): Router {
  const r = new Router();

  mountOpenApi(r, { forwardAuthHeader: api.config?.forwardAuthHeader, mcpEnabled: api.config?.mcp.enabled });

  r.get('/api/me', async (ctx) => {
    const identity = await requireUser(api, ctx);
    ctx.body = {
      user: identity.name,
      is_admin: isAdmin(identity),
      base_domain: api.config.baseDomain,
      versioning_enabled: api.config.versioning.enabled,
      mcp_enabled: api.config.mcp.enabled,
    } satisfies Me;
  });

  // Listing bodies by query, valid while the read model's checkpoint stays (SiteListCache
  // says why that is exact). The answer depends on the normalized query (hidden sites are
  // in it for admins who asked, never otherwise, whoever asks), on the site URLs and on
  // whether the reader is an admin (`updated_by`); the whole query is the key, so a filter
  // added to it later is part of the key too.
  const listings = new SiteListCache(LISTING_CACHE_BYTES);
  const checkpoint = () => api.deps.readModel.checkpoint();
  r.get('/api/sites', async (ctx) => {
    const identity = await requireUser(api, ctx);
    const query = parseSiteQuery(ctx.query, isAdmin(identity));
    const key = JSON.stringify([query, siteUrlProbe(api), isAdmin(identity)]);
    const body = await listings.answer(checkpoint, key, async () => siteListBody(api, await api.deps.readModel.listSites(query), identity));
    ctx.type = 'application/json; charset=utf-8';
    ctx.body = body; // SitesResponse, serialized by siteListBody
  });

  r.post('/api/sites', async (ctx) => {
    const identity = await requireAdmin(api, ctx);
    ctx.body = await handlePublishRequestFor(api, ctx, identity);
  });

  // The trash. Registered before `/api/sites/*path` so `deleted` is never read as a slug.
  r.get('/api/sites/deleted', async (ctx) => {
    const identity = await requireAdmin(api, ctx);
    const sites = await api.deps.readModel.listQuarantined();
    // When the quarantine job purges each one (it runs every minute or so, so at most that much later).
    const purgeAt = (deletedAt: string) => new Date(Date.parse(deletedAt) + api.config.deletedSiteTtlMs).toISOString();
    ctx.body = {
      sites: sites.map((d) => ({ ...siteJson(api, d, identity), ...(d.deletedAt ? { purge_at: purgeAt(d.deletedAt) } : {}) })),
      count: sites.length,
    } satisfies TrashResponse;
  });
  siteRoute(r, 'POST', '/api/sites/deleted/*path', async (ctx) => {
    const identity = await requireAdmin(api, ctx);
    ctx.body = siteJson(api, await restoreSite(api.deps, identity, sitePathParam(ctx)), identity);
  });
  siteRoute(r, 'DELETE', '/api/sites/deleted/*path', async (ctx) => {
    const identity = await requireAdmin(api, ctx);
    await purgeSite(api.deps, identity, sitePathParam(ctx));
    ctx.status = 204;
  });

  siteRoute(r, 'GET', '/api/sites/*path/favicon', async (ctx) => {
    const identity = await requireUser(api, ctx);
    const site = await visibleSite(api.deps, identity, sitePathParam(ctx));
    const favicon = site.live.favicon;
    // Checked again when served: revisions published before types were allow-listed may hold anything.
    const type = favicon && faviconType(favicon.type);
    const stream = favicon && type && (await api.deps.blobs.get(favicon.hash));
    if (!favicon || !type || !stream) throw new NotFoundError(`site ${site.path} has no favicon`);
    ctx.type = type;
    ctx.set('Cache-Control', 'public, max-age=3600');
    inertPublisherBytes(ctx);
    ctx.body = stream;
  });

  siteRoute(r, 'GET', '/api/sites/*path/revisions', async (ctx) => {
    const identity = await requireUser(api, ctx);
    const site = await visibleSite(api.deps, identity, sitePathParam(ctx));
    ctx.body = { revisions: revisionsOf(site).map((x) => revisionJson(x.info, x.current)), ...(await siteStorage(site, api.manifests)) } satisfies RevisionsResponse;
  });

  siteRoute(r, 'GET', '/api/sites/*path/revisions/:rev/files', async (ctx) => {
    const identity = await requireUser(api, ctx);
    const site = await visibleSite(api.deps, identity, sitePathParam(ctx));
    const manifest = await api.manifests.get(findRevision(site, param(ctx, 'rev')).manifest);
    if (!manifest) throw new NotFoundError('the revision manifest is missing');
    ctx.body = fileTree(manifest.files) satisfies FileNode;
  });

  siteRoute(r, 'GET', '/api/sites/*path/revisions/:rev/file', async (ctx) => {
    const identity = await requireUser(api, ctx);
    const site = await visibleSite(api.deps, identity, sitePathParam(ctx));
    const { path } = parseQuery(FileQuery, ctx.query);
    const manifest = await api.manifests.get(findRevision(site, param(ctx, 'rev')).manifest);
    const entry = manifest?.files.get(path);
    const stream = entry && (await api.deps.blobs.get(entry.hash));
    if (!entry || !stream) throw new NotFoundError(`no file ${path} in this revision`);
    const name = path.slice(path.lastIndexOf('/') + 1);
    // A download, never a resource: with its stored type (text/javascript, text/html…) a
    // `<script src>` or a frame on the apex could run a publisher's file with the apex's origin.
    ctx.type = 'application/octet-stream';
    ctx.length = entry.size;
    ctx.set('Content-Disposition', `attachment; filename="${name.replace(/[^\x20-\x7e]|["\\]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(name)}`);
    inertPublisherBytes(ctx);
    ctx.body = stream;
  });

  siteRoute(r, 'GET', '/api/sites/*path/revisions/:rev/archive', async (ctx) => {
    const identity = await requireUser(api, ctx);
    const site = await visibleSite(api.deps, identity, sitePathParam(ctx));
    const rev = findRevision(site, param(ctx, 'rev'));
    const manifest = await api.manifests.get(rev.manifest);
    if (!manifest) throw new NotFoundError('the revision manifest is missing');
    const base = `${site.path.replaceAll('/', '-')}-${rev.id}`;
    ctx.type = 'application/zip';
    ctx.set('Content-Disposition', `attachment; filename="${base}.zip"`);
    inertPublisherBytes(ctx);
    ctx.body = streamRevisionZip(api.deps.blobs, manifest, new Date(revisionTime(rev.id)));
  });

  siteRoute(r, 'GET', '/api/sites/*path/events', async (ctx) => {
    await requireAdmin(api, ctx);
    const address = sitePathParam(ctx);
    const { events } = await api.deps.events.readStream(siteStream(address));
    if (events.length === 0) throw new NotFoundError(`no history for ${fullPath(address)}`);
    ctx.body = { events: events.map((e) => ({ type: e.type, at: e.meta.at, actor: e.meta.actor, data: e.data })) } satisfies EventsResponse;
  });

  siteRoute(r, 'POST', '/api/sites/*path/rollback', async (ctx) => {
    const identity = await requireAdmin(api, ctx);
    const address = sitePathParam(ctx);
    const site = await rollbackSite(api.deps, identity, address, parseRollback(await readJson(ctx)));
    noteWrite(ctx, { revision: site.live.id });
    ctx.body = siteJson(api, site, identity);
  });

  siteRoute(r, 'GET', '/api/sites/*path', async (ctx) => {
    const identity = await requireUser(api, ctx);
    ctx.body = siteJson(api, await visibleSite(api.deps, identity, sitePathParam(ctx)), identity);
  });
  siteRoute(r, 'PATCH', '/api/sites/*path', async (ctx) => {
    const identity = await requireAdmin(api, ctx);
    const address = sitePathParam(ctx);
    ctx.body = siteJson(api, await patchSite(api.deps, identity, address, parsePatch(await readJson(ctx))), identity);
  });
  siteRoute(r, 'DELETE', '/api/sites/*path', async (ctx) => {
    const identity = await requireAdmin(api, ctx);
    await unpublishSite(api.deps, identity, sitePathParam(ctx));
    ctx.status = 204;
  });

  return r;
}

import Router from '@koa/router';
import Koa from 'koa';
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { ApiContext } from '../api/context.ts';
import { authentication } from '../api/auth.ts';
import { crossOriginGuard } from '../api/cross-origin.ts';
import { errorMiddleware } from '../api/errors.ts';
import { activityRouter } from '../api/activity.ts';
import { writeLog } from '../api/write-log.ts';
import { auditRouter } from '../api/audit.ts';
import { webhooksRouter } from '../api/webhooks.ts';
import { deploysRouter } from '../api/deploys.ts';
import { domainsRouter } from '../api/domains.ts';
import { ingestRouter } from '../api/ingest.ts';
import { keysRouter } from '../api/keys.ts';
import { managementRouter } from '../api/management.ts';
import { requestLineCheck } from '../api/request-line.ts';
import { apexSecurityHeaders } from '../api/security-headers.ts';
import { tlsAskRoute } from '../api/tls.ts';
import type { AppDeps } from '../app/deps.ts';
import { recordConnectionUse } from '../app/connections/record-connection-use.ts';
import { SiteShapes } from '../app/contract/site-json.ts';
import { PublishGate } from '../app/gate.ts';
import { recordKeyUse } from '../app/keys/record-key-use.ts';
import { purgeExpired } from '../app/jobs/purge-expired.ts';
import { ManifestCache } from '../app/queries/manifest-cache.ts';
import { ListingTree } from '../app/queries/listing-tree.ts';
import { FilteredTrees } from '../app/queries/filtered-tree.ts';
import { SiteListCache } from '../app/queries/site-list-cache.ts';
import { systemIdentity } from '../domain/auth.ts';
import type { SiteAddress } from '../domain/paths.ts';
import { siteHostLabels, type Variant } from '../domain/site/previews.ts';
import { readArchive } from './archive/index.ts';
import type { Config } from './config.ts';
import { hostClassifier, hostNames, listenHostNames } from './hosts.ts';
import { createOutbound } from './outbound/client.ts';
import { UsageRecorder } from './usage-recorder.ts';
import { youngGarbageHint } from './gc-hint.ts';
import { auditTo, createLogger, type Logger } from './log.ts';
import { clientRoute } from './client-bundle.ts';
import { startLeaderJob } from './leader-job.ts';
import { portalMiddleware } from './portal.ts';
import { docsMiddleware } from './docs/site.ts';
import { projectRoot } from './root.ts';
import { Projector } from './projector.ts';
import { leaseHolderId, takeLease } from './lease-holder.ts';
import { createSiteServer } from './serve-site.ts';
import { startWebhookSender } from './webhook-sender.ts';
import { publicOrigin, webhookSiteUrls } from './webhooks/site-urls.ts';
import { workerLanes } from './webhooks/worker-lanes.ts';
import { inCidrs } from '../api/ip.ts';
import { capConnectionsPerPeer } from './peer-cap.ts';
import { answerClientError, guardConnections, HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS } from './slow-client.ts';
import { openStack, type Stack } from './stack.ts';

/** Bytes of listing bodies kept (a listing of 10,000 sites is about 3 MB). */
const LISTING_CACHE_BYTES = 64 * 1024 * 1024;

/** The identities the service acts as on its own account, named in the events they write. */
const KEY_USAGE = systemIdentity('key-usage');
const CONNECTION_USAGE = systemIdentity('connection-usage');
const QUARANTINE_TTL = systemIdentity('quarantine-ttl');

export type Service = {
  readonly config: Config;
  readonly stack: Stack;
  readonly deps: AppDeps;
  readonly projector: Projector;
  readonly api: ApiContext;
  readonly log: Logger;
  close(): Promise<void>;
};

/**
 * Builds the service around the configured stack. `project: 'run'` starts the projector
 * loop (it takes the lease when free); `'catch-up'` only drains the log on demand, for
 * short-lived CLI commands.
 */
export async function createService(config: Config, options: { project: 'run' | 'catch-up'; port?: () => number } = { project: 'run' }): Promise<Service> {
  const log = createLogger(config);
  const stack = await openStack(config);
  const holder = leaseHolderId();
  const tookOver = (from: string) => log.warn('took over the projector lease from a process that stopped without releasing it', { holder: from });
  const projector = new Projector(stack.events, stack.readModel, {
    holder,
    onError: (err) => log.error('projection failed', { error: String(err) }),
    onTakeOver: tookOver,
    catchUpBytes: config.projectionBatchBytes,
    // The activity log and the webhook outbox, each with its own checkpoint (DESIGN.md "Subscribers of the log").
    sides: [
      { name: 'activity', beginBatch: () => stack.activity.beginBatch() },
      { name: 'webhooks', beginBatch: () => stack.webhooks.beginBatch() },
    ],
  });
  const tmpDir = join(config.dataDir, 'tmp');
  mkdirSync(tmpDir, { recursive: true });
  const publicPort = () => options.port?.() ?? config.listen.port;
  const origin = (host: string) => publicOrigin(config.publicScheme, host, publicPort());
  const siteUrl = (address: SiteAddress, variant?: Variant) => `${origin(`${siteHostLabels(address, variant)}.${config.baseDomain}`)}/`;
  // Deliveries: 10 s for the whole request (spec §16), an answer read up to 64 KiB (only an excerpt is kept).
  const webhookOutbound = createOutbound({ allowPrivate: config.webhooks.allowPrivate, timeoutMs: 10_000, maxBytes: 64 * 1024, userAgent: 'sites-webhooks' });
  const webhookSiteUrl = webhookSiteUrls(config.publicScheme, config.baseDomain, publicPort);
  const sender =
    options.project === 'run'
      ? startWebhookSender(
          { webhooks: stack.webhooks, outbound: webhookOutbound, siteUrl: webhookSiteUrl, now: () => new Date(), random: Math.random },
          {
            isLeader: () => projector.isLeader,
            onError: (err) => log.error('webhook delivery failed', { error: String(err) }),
            lanes: workerLanes({ store: stack.webhooksAt, scheme: config.publicScheme, baseDomain: config.baseDomain }, publicPort),
          },
        )
      : undefined;
  if (sender) projector.onCommitted(() => sender.projected());
  const shapes = new SiteShapes(siteUrl);
  const listingTree = new ListingTree(stack.readModel, (doc, admin) => shapes.json(doc, admin));
  const deps: AppDeps = {
    events: stack.events,
    queries: stack.readModel,
    blobIndex: stack.readModel,
    deploys: stack.readModel,
    blobs: stack.blobs,
    versioning: config.versioning,
    settings: {
      baseDomain: config.baseDomain,
      mcpEnabled: config.mcp.enabled,
      deletedSiteTtlMs: config.deletedSiteTtlMs,
      mcpApprovers: config.mcp.allowedUsers,
      previewTtlMs: config.previews.ttlMs,
      maxPreviewsPerSite: config.previews.maxPerSite,
      serviceNames: [...new Set([config.baseDomain, ...config.aliasDomains, config.controlDomain])],
      ...(config.controlDomain !== config.baseDomain ? { separatePortalHost: config.controlDomain } : {}),
    },
    siteUrl,
    // The instance's caches: two services in one process (as the tests run them) share none.
    manifests: new ManifestCache(stack.blobs),
    shapes,
    listings: new SiteListCache(LISTING_CACHE_BYTES),
    listingTree,
    filteredTrees: new FilteredTrees(stack.readModel, listingTree, (doc, admin) => shapes.json(doc, admin)),
    activity: stack.activity,
    webhooks: stack.webhooks,
    webhookOutbound,
    ...(sender ? { wakeSender: () => sender.wake() } : {}),
    limits: { maxUploadBytes: config.maxUploadBytes, maxExtractBytes: config.maxExtractBytes, maxExtractEntries: config.maxExtractEntries, deployTtlMs: config.deployTtlMs },
    tmpDir,
    gate: new PublishGate(),
    now: () => new Date(),
    waitForProjection:
      options.project === 'run'
        ? (stream, revision) => projector.waitFor(stream, revision)
        : async (stream, revision) => {
            // Short-lived CLI: project what we appended ourselves unless a running service holds the lease.
            if (await takeLease(stack.readModel, 'projector', holder, 5_000, tookOver)) {
              try {
                await projector.catchUp();
              } finally {
                await stack.readModel.releaseLease('projector', holder);
              }
            }
            await projector.waitFor(stream, revision);
          },
  };
  const keyUsage = new UsageRecorder<number>((id, at) => recordKeyUse(deps, KEY_USAGE, { id, at }), deps.now, 60_000, (err) => log.warn('could not record key use', { error: String(err) }));
  const connectionUsage = new UsageRecorder<string>((id, at) => recordConnectionUse(deps, CONNECTION_USAGE, { id, at }), deps.now, 60_000, (err) =>
    log.warn('could not record connection use', { error: String(err) }),
  );
  const api: ApiContext = {
    deps,
    config,
    apexOrigin: () => origin(config.controlDomain),
    // Every name the apex answers to: the cross-origin guard accepts an Origin naming any of them.
    apexHosts: [config.baseDomain, ...config.aliasDomains, ...listenHostNames(config.listen.host)].map((h) => h.replace(/^\[|\]$/g, '').toLowerCase()),
    readArchive: (source: Readable) =>
      readArchive(source, { maxEntries: config.maxExtractEntries, maxBytes: config.maxExtractBytes }, tmpDir),
    keyUsed: (id) => keyUsage.used(id),
    connectionUsed: (id) => connectionUsage.used(id),
    outbound: {
      // The document's own bounds (5 KB, 5 s) are the connector's to set; these only cap them.
      oauthMetadata: createOutbound({ allowPrivate: config.mcp.allowPrivateMetadata, timeoutMs: 10_000, maxBytes: 64 * 1024, userAgent: 'sites-oauth (client metadata)' }),
    },
    // One counter for every upload: the dead buffers pile up in the one young generation.
    hooks: { bytesReceived: youngGarbageHint(), audit: auditTo(log), log },
  };
  if (options.project === 'run') projector.start();
  return {
    config,
    stack,
    deps,
    projector,
    api,
    log,
    async close() {
      await Promise.all([keyUsage.flush(), connectionUsage.flush()]);
      await sender?.stop();
      await projector.stop();
      await stack.close();
    },
  };
}

/** The koa app of the apex host: API, ingest, MCP connector and the portal. */
export async function apexApp(service: Service): Promise<Koa> {
  const app = new Koa();
  app.proxy = false;
  app.silent = true;
  app.on('error', (err) => service.log.error('request failed', { error: err instanceof Error ? (err.stack ?? err.message) : String(err) }));
  // Outermost: it logs each write and refusal with the status actually sent.
  app.use(writeLog(service.api));
  app.use(errorMiddleware);
  app.use(apexSecurityHeaders);
  app.use(requestLineCheck);
  // In front of every route, the MCP consent form included: a route added later is covered too.
  // Who sent the request is resolved once here (ctx.state.auth); each route asks for what it needs.
  app.use(authentication(service.api));
  app.use(crossOriginGuard(service.api));
  if (service.config.mcp.enabled) app.use(lazyMcp(service.api));
  const router = new Router();
  router.get('/healthz', (ctx) => {
    ctx.body = { ok: true };
  });
  const { config } = service;
  router.get('/tls/ask', tlsAskRoute(service.api, { ...hostNames(config), baseDomain: config.baseDomain, controlDomain: config.controlDomain }));
  // domainsRouter before managementRouter: it passes `DELETE /api/sites/…/domains/<no dot>` on to the unpublish there.
  for (const r of [ingestRouter(service.api), deploysRouter(service.api), keysRouter(service.api), webhooksRouter(service.api), activityRouter(service.api), auditRouter(service.api), domainsRouter(service.api), managementRouter(service.api), router]) {
    app.use(r.routes());
    app.use(r.allowedMethods());
  }
  app.use(clientRoute(() => service.api.apexOrigin()));
  // The docs of the running version, linked from the portal's header (host/docs/site.ts says why here).
  app.use(docsMiddleware(projectRoot));
  app.use(portalMiddleware([service.config.baseDomain, ...service.config.aliasDomains]));
  return app;
}

const isTlsAsk = (url: string | undefined) => url === '/tls/ask' || !!url?.startsWith('/tls/ask?');

const MCP_PATHS = /^\/(?:mcp(?:\/|$)|\.well-known\/oauth-|api\/mcp\/)/;

/**
 * The MCP connector (SDK, OAuth) is loaded on the first request that needs it: a service
 * that is only publishing and serving never pays its start-up time or memory.
 */
function lazyMcp(api: ApiContext): Koa.Middleware {
  let routes: Promise<Koa.Middleware> | undefined;
  return async (ctx, next) => {
    if (!MCP_PATHS.test(ctx.path)) return next();
    routes ??= import('../mcp/sites/index.ts').then(({ mountMcp }) => {
      const router = new Router();
      mountMcp(router, api);
      const [handle, methods] = [router.routes() as unknown as Koa.Middleware, router.allowedMethods() as unknown as Koa.Middleware];
      return (c, n) => handle(c, () => methods(c, n));
    });
    return (await routes)(ctx, next);
  };
}

/** The HTTP server: the apex goes to koa; every site host is served by a lean handler. */
export async function startHttp(service: Service): Promise<Server> {
  const app = await apexApp(service);
  const apexHandler = app.callback();
  // The listen address answers as the apex too (its IP literal; localhost on loopback), never with sites under it.
  const names = hostNames(service.config);
  const classify = hostClassifier(names);
  // The instance's site server, with its own caches (documents, routes, bodies).
  const sites = createSiteServer({ queries: service.stack.readModel, blobs: service.stack.blobs, manifests: service.deps.manifests });
  // Node's connection sweep is off (both timeouts 0): guardConnections owns every deadline.
  const server = createServer({ headersTimeout: 0, requestTimeout: 0 }, (req, res) => {
    const target = classify(req.headers.host);
    if (target.kind === 'apex') return void apexHandler(req, res);
    // A TLS proxy asks by whatever name its network gives the service (a container's
    // `sites-1`, a cluster's service name), which the service cannot know: the ask (and
    // only it) is answered on every name that is not a site's; the route checks the peer.
    // A custom domain is a site's host, so its own /tls/ask is the site's file, not the ask.
    if (target.kind === 'unknown' && isTlsAsk(req.url)) return void apexHandler(req, res);
    // A name under no apex may be a site's custom domain (spec §15): served as that site's host, never as the apex.
    // Previews and permalinks (spec §14) are publisher content like the site: the same lean handler, never the apex.
    if (target.kind === 'site' || target.kind === 'external' || target.kind === 'preview' || target.kind === 'permalink') {
      const orElse = target.kind === 'external' && isTlsAsk(req.url) ? () => void apexHandler(req, res) : undefined;
      const served =
        target.kind === 'site'
          ? sites.serve(target.address, req, res)
          : target.kind === 'preview'
            ? sites.serve(target.address, req, res, { kind: 'preview', name: target.name })
            : target.kind === 'permalink'
              ? sites.serve(target.address, req, res, { kind: 'permalink', number: target.number })
              : sites.serveDomain(target.name, req, res, orElse);
      served.catch((err) => {
        service.log.error('serving failed', { error: String(err) });
        try {
          if (res.headersSent) throw err;
          // Headers a failed answer had set could make the 500 fail the same way: start clean.
          for (const name of res.getHeaderNames()) res.removeHeader(name);
          res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' });
          res.end('internal error\n');
        } catch {
          res.destroy();
        }
      });
      return;
    }
    res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
    res.end('unknown host\n');
  });
  server.keepAliveTimeout = 5_000;
  server.on('clientError', answerClientError);
  guardConnections(server, { headersTimeoutMs: HEADERS_TIMEOUT_MS, requestTimeoutMs: REQUEST_TIMEOUT_MS, pace: service.config.uploadPace });
  // Last: it wraps every connection listener installed before it (Node's parser, the guard).
  capConnectionsPerPeer(server, {
    max: service.config.maxConnectionsPerAddress,
    exempt: (address) => inCidrs(address, service.config.trustedProxies),
    onRefused: (address, refused) => service.log.warn('connection cap reached', { client: address, cap: service.config.maxConnectionsPerAddress, refused }),
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(service.config.listen.port, service.config.listen.host, () => resolve());
  });
  return server;
}

/** Purges quarantined sites past the TTL, as the system actor; runs on the projector leader only. */
export function startQuarantineJob(service: Service, everyMs = 60_000): () => void {
  return startLeaderJob(service, 'quarantine job', everyMs, async () => {
    const purged = await purgeExpired(service.deps, QUARANTINE_TTL, { ttlMs: service.config.deletedSiteTtlMs });
    for (const path of purged) service.log.info('purged expired site', { site: path });
  });
}

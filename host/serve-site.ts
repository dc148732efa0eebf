import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { checkpointReader } from '../app/queries/fresh-checkpoint.ts';
import type { ManifestCache } from '../app/queries/manifest-cache.ts';
import type { Manifest, ManifestEntry } from '../domain/manifest.ts';
import { fullPath, parseSitePath, type SiteAddress } from '../domain/paths.ts';
import type { BlobStore } from '../domain/ports.ts';
import type { SiteDoc } from '../projections/documents.ts';
import type { Queries } from '../projections/queries.ts';
import type { HeaderSet } from '../domain/rules/headers.ts';
import { createBodies, HOT_MAX, SMALL, type Bodies, type Coding } from './byte-cache.ts';
import { createDomainLookup } from './domain-lookup.ts';
import { decodedPath, resolveRequest, rulesOf, type Resolved } from './site-resolve.ts';
import { readable } from '../domain/site/lifecycle.ts';
import { variantRevision, type Variant } from '../domain/site/previews.ts';

export type SiteServerDeps = { queries: Queries; blobs: BlobStore; manifests: ManifestCache };

const COMPRESSIBLE = /^(text\/|application\/(javascript|json|xml|wasm|manifest\+json|ld\+json|rss\+xml|atom\+xml)|image\/svg\+xml|font\/(ttf|otf))/;

const CODING = { br: /\bbr\b(?!;q=0(\.0*)?\b)/, gzip: /\bgzip\b(?!;q=0(\.0*)?\b)/ } as const;

/** Does `Accept-Encoding` allow this coding (present, and not `;q=0`)? */
function accepts(accept: string | undefined, coding: Coding): boolean {
  return !!accept && CODING[coding].test(accept.toLowerCase());
}

function pickEncoding(accept: string | undefined): Coding | undefined {
  if (accepts(accept, 'br')) return 'br';
  if (accepts(accept, 'gzip')) return 'gzip';
  return undefined;
}

function contentTypeHeader(type: string): string {
  if (type === 'text/html') return 'text/html; charset=utf-8';
  if (type.startsWith('text/') || type === 'application/javascript' || type === 'application/json') return `${type}; charset=utf-8`;
  return type;
}

/**
 * Site documents by path, each tagged with the read model's checkpoint it was read at.
 * The checkpoint is one indexed row, far cheaper than loading and parsing the site
 * document; any applied event moves it, so a publish that has returned (its events are
 * projected) is never answered from an older document, whichever instance projected it.
 * It is read after the request arrived, once for all the requests of a turn of the event
 * loop (`checkpointReader` says why that keeps this promise). An entry also points at its
 * live manifest, weakly: the manifest cache bounds what is held, and while the manifest
 * is alive a request needs nothing but the checkpoint to reach it.
 */
type CachedSite = {
  readonly checkpoint: string | undefined;
  readonly site: SiteDoc | undefined;
  manifest?: WeakRef<Manifest>;
  /** Manifests of its previews and permalinks served at this checkpoint (by `pr-42`, by 7), each until its preview expires. */
  variants?: Map<string | number, { readonly manifest: WeakRef<Manifest>; readonly until: number }>;
};
const SITE_CACHE_MAX = 10_000;

/**
 * What one site server remembers: site documents by path, routes by revision and URL, and
 * bodies. One per service instance (`createSiteServer`), never process-global: two instances
 * in one process (as the tests run them) share nothing, and each stays within its own bounds.
 */
type Memory = {
  readonly deps: SiteServerDeps;
  readonly checkpoint: () => Promise<string | undefined>;
  readonly sites: Map<string, CachedSite>;
  readonly bodies: Bodies;
  routes: WeakMap<Manifest, Remembered>;
  remembered: number;
  rememberedBytes: number;
};

async function loadSite(m: Memory, path: string, checkpoint: string | undefined): Promise<CachedSite> {
  const entry: CachedSite = { checkpoint, site: await m.deps.queries.getSite(path) };
  // Keep it only if nothing was applied while reading (the document may be newer than `checkpoint`, never older).
  if ((await m.checkpoint()) === checkpoint) {
    m.sites.delete(path);
    m.sites.set(path, entry);
    if (m.sites.size > SITE_CACHE_MAX) m.sites.delete(m.sites.keys().next().value!);
  }
  return entry;
}

/** The live manifest of a site cached at this checkpoint, without waiting for anything: the common case. */
function knownManifest(m: Memory, path: string, checkpoint: string | undefined): Manifest | undefined {
  const hit = m.sites.get(path);
  return hit && hit.checkpoint === checkpoint ? hit.manifest?.deref() : undefined;
}

/** The live revision's manifest; undefined when the site is absent or offline (hidden sites are served: hidden means unlisted). */
async function liveManifest(m: Memory, path: string, checkpoint: string | undefined): Promise<Manifest | undefined> {
  const { deps } = m;
  const hit = m.sites.get(path);
  const entry = hit && hit.checkpoint === checkpoint ? hit : await loadSite(m, path, checkpoint);
  const known = entry.manifest?.deref();
  if (known || !entry.site || !readable(entry.site.status)) return known;
  const manifest = await deps.manifests.get(entry.site.live.manifest);
  if (manifest) entry.manifest = new WeakRef(manifest);
  return manifest;
}

/** The key of a variant in `CachedSite.variants`: a preview's name, a permalink's number (a Map tells 7 from "7"; nothing built per request). */
const variantKey = (variant: Variant): string | number => (variant.kind === 'preview' ? variant.name : variant.number);

/** A preview's or permalink's manifest cached at this checkpoint and not expired, without waiting for anything. */
function knownVariant(m: Memory, path: string, variant: Variant, checkpoint: string | undefined, nowMs: number): Manifest | undefined {
  const hit = m.sites.get(path);
  if (!hit || hit.checkpoint !== checkpoint) return undefined;
  const known = hit.variants?.get(variantKey(variant));
  return known && nowMs < known.until ? known.manifest.deref() : undefined;
}

/**
 * The manifest a preview or permalink host serves (spec §14): a preview not expired yet, or a
 * revision the site retains; undefined when the site is not live (previews and permalinks go
 * offline with it) or has no such preview or revision.
 */
async function variantManifest(m: Memory, path: string, variant: Variant, checkpoint: string | undefined, nowMs: number): Promise<Manifest | undefined> {
  const hit = m.sites.get(path);
  const entry = hit && hit.checkpoint === checkpoint ? hit : await loadSite(m, path, checkpoint);
  if (!entry.site || !readable(entry.site.status)) return undefined;
  const found = variantRevision(entry.site, variant, nowMs);
  if (!found) return undefined;
  const manifest = await m.deps.manifests.get(found.revision.manifest);
  if (manifest) (entry.variants ??= new Map()).set(variantKey(variant), { manifest: new WeakRef(manifest), until: found.until });
  return manifest;
}

/**
 * What a request URL resolves to in a revision, and for a file the header list of its full
 * answer, built once: a manifest and its rules never change, so neither does the answer to
 * a URL. Resolving and building headers one `setHeader` at a time (each validated and
 * stored, then serialized) cost more than the cached body's socket write.
 */
type Route = { readonly resolved: Resolved; readonly answer?: FileAnswer };
/**
 * A file's answer with the site's `_headers` for the path asked. Shared by every URL that
 * resolves to the same file through the same blocks (`/a?x=1`, `/a?x=2`, …), and the joined
 * values of several blocks by every answer that combines them: what a publisher wrote (up
 * to 12 KiB an answer) is held once, never once per URL, or a few thousand query strings
 * would hold gigabytes.
 */
type FileAnswer = {
  readonly siteHeaders: HeaderSet | undefined;
  /** By coding ('' for none): the headers of the 200/404 answer with the whole body, Content-Length included. */
  readonly byCoding: Map<string, { readonly length: number; readonly headers: string[] }>;
};
/** A revision's remembered routes by URL, the answers they share, and the header sets of several blocks (by block indexes). */
type Remembered = { readonly urls: Map<string, Route>; readonly answers: Map<string, FileAnswer>; readonly combined: Map<string, HeaderSet> };
/**
 * Any URL may be asked (query strings, typos, probes), so what is remembered is bounded:
 * URLs up to URL_MAX characters, ROUTES_MAX of them, and ROUTE_BYTES_MAX of what they hold
 * (URLs, redirect locations, shared answers and header sets, each counted once) over all
 * revisions; past either bound all are forgotten at once. Longer URLs are resolved each time.
 */
const URL_MAX = 1024;
const ROUTES_MAX = 10_000;
const ROUTE_BYTES_MAX = 8 * 1024 * 1024;
/** What an answer's header lists hold beyond the strings they share: a name and a value pointer per header, for each of three codings. */
const ANSWER_BYTES_PER_HEADER = 3 * 2 * 8;

/** A remembered route, without waiting for anything: the common case. */
const knownRoute = (m: Memory, manifest: Manifest, url: string): Route | undefined => m.routes.get(manifest)?.urls.get(url);

async function newRoute(m: Memory, manifest: Manifest, url: string): Promise<Route> {
  const q = url.indexOf('?');
  const [urlPath, search] = q < 0 ? [url, ''] : [url.slice(0, q), url.slice(q)];
  const rules = await rulesOf(m.deps.blobs, manifest);
  const resolved = resolveRequest(manifest, rules, urlPath, search);
  const keep = url.length <= URL_MAX;
  if (resolved.kind !== 'file') {
    const route: Route = { resolved };
    if (keep) remember(m, manifest, url, route, resolved.kind === 'redirect' ? resolved.location.length : 0);
    return route;
  }
  const blocks = rules?.headers.blocksFor(decodedPath(urlPath)) ?? [];
  // One block's own set is kept with the compiled rules; a combination of several is shared here.
  const blocksKey = blocks.join(',');
  const setKey = blocks.length > 1 ? blocksKey : undefined;
  const answerKey = `${resolved.entry.hash} ${resolved.entry.type} ${resolved.status} ${blocksKey}`;
  const known = m.routes.get(manifest);
  const answer = known?.answers.get(answerKey) ?? {
    siteHeaders: (setKey === undefined ? undefined : known?.combined.get(setKey)) ?? rules?.headers.headersOf(blocks),
    byCoding: new Map(),
  };
  const route: Route = { resolved, answer };
  if (keep) remember(m, manifest, url, route, 0, answerKey, setKey);
  return route;
}

/**
 * Remembers a route under its URL, with the answer and the combined header set it shares
 * when they are new, after forgetting everything if this would pass a bound.
 */
function remember(m: Memory, manifest: Manifest, url: string, route: Route, ownBytes: number, answerKey?: string, setKey?: string): void {
  const headers = route.answer?.siteHeaders;
  const answerBytes = answerKey === undefined ? 0 : answerKey.length + ((headers?.size ?? 0) + 8) * ANSWER_BYTES_PER_HEADER;
  const setBytes = setKey === undefined || !headers ? 0 : setKey.length + [...headers].reduce((n, [name, value]) => n + name.length + value.length, 0);
  if (m.remembered + 1 > ROUTES_MAX || m.rememberedBytes + url.length + ownBytes + answerBytes + setBytes > ROUTE_BYTES_MAX) {
    m.routes = new WeakMap();
    m.remembered = 0;
    m.rememberedBytes = 0;
  }
  let known = m.routes.get(manifest);
  if (!known) m.routes.set(manifest, (known = { urls: new Map(), answers: new Map(), combined: new Map() }));
  if (answerKey !== undefined && !known.answers.has(answerKey)) {
    known.answers.set(answerKey, route.answer!);
    m.rememberedBytes += answerBytes;
  }
  if (setKey !== undefined && headers && !known.combined.has(setKey)) {
    known.combined.set(setKey, headers);
    m.rememberedBytes += setBytes;
  }
  known.urls.set(url, route);
  m.remembered += 1;
  m.rememberedBytes += url.length + ownBytes;
}

/**
 * A site server: serves a site host's requests from the live revision, with its own memory;
 * with a variant, a preview's or permalink's host (spec §14) from that revision.
 */
export type SiteServer = {
  serve(address: SiteAddress, req: IncomingMessage, res: ServerResponse, variant?: Variant): Promise<void>;
  /**
   * A request whose Host is a custom domain (spec §15): served as its site's host, by the same
   * rules. When no site has the name: `orElse` answers if given, else 404.
   */
  serveDomain(name: string, req: IncomingMessage, res: ServerResponse, orElse?: () => void): Promise<void>;
};

/** The site server of one service instance (its caches are its own; see `Memory`). */
export function createSiteServer(deps: SiteServerDeps): SiteServer {
  const m: Memory = { deps, checkpoint: checkpointReader(deps.queries), sites: new Map(), bodies: createBodies(), routes: new WeakMap(), remembered: 0, rememberedBytes: 0 };
  const domains = createDomainLookup(deps.queries, m.checkpoint);
  return {
    serve: (address, req, res, variant) => serveSite(m, address, req, res, variant),
    async serveDomain(name, req, res, orElse) {
      const path = await domains.path(name, await m.checkpoint());
      if (path === undefined) return orElse ? orElse() : plain(res, 404, 'unknown host\n');
      return serveSite(m, parseSitePath(path), req, res);
    },
  };
}

/**
 * Serves one request on a site host from the live revision, or on a preview's or
 * permalink's host from its revision (spec §14): the same rules, `_redirects`/`_headers` and
 * 404.html of that revision, and on every answer `X-Robots-Tag: noindex` (a preview or an old
 * revision must never be what a search engine finds).
 */
async function serveSite(m: Memory, address: SiteAddress, req: IncomingMessage, res: ServerResponse, variant?: Variant): Promise<void> {
  const { deps } = m;
  // Set with each answer's own headers, never ahead with setHeader: that would send every
  // cached answer's writeHead down Node's slow path (one setHeader per header).
  const noindex = variant !== undefined;
  const robots = noindex ? ROBOTS : undefined;
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8', ...robots });
    res.end('method not allowed\n');
    return;
  }
  const path = fullPath(address);
  const checkpoint = await m.checkpoint();
  let manifest: Manifest | undefined;
  if (variant) {
    const nowMs = Date.now();
    manifest = knownVariant(m, path, variant, checkpoint, nowMs) ?? (await variantManifest(m, path, variant, checkpoint, nowMs));
  } else manifest = knownManifest(m, path, checkpoint) ?? (await liveManifest(m, path, checkpoint));
  if (!manifest) return plain(res, 404, 'site not found\n', robots);
  const url = req.url ?? '/';
  const route = knownRoute(m, manifest, url) ?? (await newRoute(m, manifest, url));
  const resolved = route.resolved;
  if (resolved.kind === 'missing') return plain(res, 404, 'not found\n', robots);
  if (resolved.kind === 'redirect') {
    res.writeHead(resolved.status ?? 301, { Location: resolved.location, 'Content-Type': 'text/plain; charset=utf-8', ...robots });
    res.end(req.method === 'HEAD' ? undefined : `moved to ${resolved.location}\n`);
    return;
  }
  const answer = route.answer!;
  if (!sendKnown(m.bodies, answer, resolved.entry, resolved.status, req, res, noindex)) {
    await sendEntry(m.bodies, deps.blobs, resolved.entry, resolved.status, req, res, answer.siteHeaders, noindex);
  }
}

const NOINDEX = 'noindex';
const ROBOTS = { 'X-Robots-Tag': NOINDEX } as const;
/** `FileAnswer.byCoding` keys of noindex answers, by coding: no string built per request. */
const NOINDEX_KEY: Readonly<Record<string, string>> = { '': 'noindex', br: 'br noindex', gzip: 'gzip noindex' };

/** The coding a full answer of this file gets for this request. */
function codingFor(entry: ManifestEntry, req: IncomingMessage): Coding | undefined {
  return entry.size > 256 && COMPRESSIBLE.test(entry.type) ? pickEncoding(req.headers['accept-encoding']) : undefined;
}

/**
 * The common answer, the whole file from memory with headers already built, when nothing
 * makes it special (no Range, no If-None-Match); false when `sendEntry` has to answer.
 */
function sendKnown(bodies: Bodies, known: FileAnswer, entry: ManifestEntry, status: number, req: IncomingMessage, res: ServerResponse, noindex: boolean): boolean {
  if (req.headers.range !== undefined || req.headers['if-none-match'] !== undefined) return false;
  const coding = codingFor(entry, req);
  const body = bodies.cachedBody(entry, coding);
  if (!body) return false;
  // A permalink of the live revision shares its manifest, so its answers too: noindex is part of the key.
  const key = noindex ? NOINDEX_KEY[coding ?? '']! : (coding ?? '');
  let answer = known.byCoding.get(key);
  if (!answer || answer.length !== body.length) {
    answer = { length: body.length, headers: answerHeaders(entry, status, coding, body.length, known.siteHeaders, noindex) };
    known.byCoding.set(key, answer);
  }
  res.writeHead(status, answer.headers);
  res.end(req.method === 'HEAD' ? undefined : body);
  return true;
}

/** The headers `sendEntry` sets for a full answer, in its order and with its precedence, as one flat list. */
function answerHeaders(entry: ManifestEntry, status: number, coding: Coding | undefined, length: number, siteHeaders: HeaderSet | undefined, noindex: boolean): string[] {
  const headers = new Map<string, [string, string]>();
  const set = (name: string, value: string) => headers.set(name.toLowerCase(), [name, value]);
  for (const [name, value] of baseHeaders(entry)) set(name, value);
  if (siteHeaders) for (const [name, value] of siteHeaders) set(name, value);
  if (status === 200) {
    set('ETag', `"${entry.hash}"`);
    set('Accept-Ranges', 'bytes');
  }
  if (coding) set('Content-Encoding', coding);
  set('Content-Length', String(length));
  // After the site's own headers: a preview's `_headers` cannot make it indexable.
  if (noindex) set('X-Robots-Tag', NOINDEX);
  return [...headers.values()].flat();
}

/** What every file answer carries before the site's own headers. */
function baseHeaders(entry: ManifestEntry): [string, string][] {
  const headers: [string, string][] = [
    ['Content-Type', contentTypeHeader(entry.type)],
    ['Cache-Control', entry.type === 'text/html' ? 'no-cache' : 'public, max-age=300'],
    ['X-Content-Type-Options', 'nosniff'],
  ];
  if (COMPRESSIBLE.test(entry.type)) headers.push(['Vary', 'Accept-Encoding']);
  return headers;
}

async function sendEntry(
  bodies: Bodies,
  blobs: BlobStore,
  entry: ManifestEntry,
  status: number,
  req: IncomingMessage,
  res: ServerResponse,
  /** From the site's `_headers`: they replace the service's own value of the same header. */
  siteHeaders: HeaderSet | undefined,
  noindex: boolean,
): Promise<void> {
  const etag = `"${entry.hash}"`;
  for (const [name, value] of baseHeaders(entry)) res.setHeader(name, value);
  if (siteHeaders) for (const [name, value] of siteHeaders) res.setHeader(name, value);
  if (noindex) res.setHeader('X-Robots-Tag', NOINDEX);
  if (status === 200) {
    res.setHeader('ETag', etag);
    res.setHeader('Accept-Ranges', 'bytes');
    const inm = req.headers['if-none-match'];
    if (inm && (inm === '*' || inm.split(',').some((t) => t.trim().replace(/^W\//, '') === etag))) {
      res.statusCode = 304;
      res.end();
      return;
    }
    const range = req.headers.range;
    if (range) {
      const r = parseRange(range, entry.size);
      if (r === 'unsatisfiable') {
        res.writeHead(416, { 'Content-Range': `bytes */${entry.size}` });
        res.end();
        return;
      }
      if (r && (!req.headers['if-range'] || req.headers['if-range'] === etag)) {
        res.statusCode = 206;
        res.setHeader('Content-Range', `bytes ${r.start}-${r.end}/${entry.size}`);
        res.setHeader('Content-Length', r.end - r.start + 1);
        if (req.method === 'HEAD') return void res.end();
        const stream = await blobs.get(entry.hash, r);
        if (!stream) return plain(res, 500, 'file missing from the store\n');
        await pipeline(stream, res).catch(() => res.destroy());
        return;
      }
    }
  }
  res.statusCode = status;
  const encoding = codingFor(entry, req);
  if (encoding) {
    res.setHeader('Content-Encoding', encoding);
    if (entry.size <= SMALL) {
      const body = await bodies.compressedBody(blobs, entry, encoding);
      if (!body) return plain(res, 500, 'file missing from the store\n');
      res.setHeader('Content-Length', body.length);
      res.end(req.method === 'HEAD' ? undefined : body);
      return;
    }
    // Large bodies are compressed while streaming; brotli is too slow for that, so gzip only.
    if (accepts(req.headers['accept-encoding'], 'gzip')) {
      res.setHeader('Content-Encoding', 'gzip');
      if (req.method === 'HEAD') return void res.end();
      const stream = await blobs.get(entry.hash);
      if (!stream) return plain(res, 500, 'file missing from the store\n');
      await pipeline(stream, createGzip({ level: 4 }), res).catch(() => res.destroy());
      return;
    }
    res.removeHeader('Content-Encoding');
  }
  res.setHeader('Content-Length', entry.size);
  if (req.method === 'HEAD') return void res.end();
  if (entry.size <= HOT_MAX) {
    const body = await bodies.wholeBody(blobs, entry);
    if (!body) return plain(res, 500, 'file missing from the store\n');
    res.end(body);
    return;
  }
  const stream = await blobs.get(entry.hash);
  if (!stream) return plain(res, 500, 'file missing from the store\n');
  await pipeline(stream, res).catch(() => res.destroy());
}

/** One `bytes=a-b` range; multiple ranges are answered with the whole file (allowed by RFC 9110). */
export function parseRange(header: string, size: number): { start: number; end: number } | 'unsatisfiable' | undefined {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  let start: number;
  let end: number;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0) return 'unsatisfiable';
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
    if (m[2] !== '' && Number(m[2]) < start) return undefined;
  }
  if (start >= size || size === 0) return 'unsatisfiable';
  return { start, end };
}

function plain(res: ServerResponse, status: number, text: string, extra?: Readonly<Record<string, string>>): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-cache', ...extra });
  res.end(res.req?.method === 'HEAD' ? undefined : text);
}

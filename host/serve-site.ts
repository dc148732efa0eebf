import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { gzipSync, brotliCompressSync, constants as zlibConstants, createGzip } from 'node:zlib';
import type { ManifestEntry } from '../domain/manifest.ts';
import type { ManifestCache } from '../app/queries/manifest-cache.ts';
import { fullPath, type SiteAddress } from '../domain/paths.ts';
import type { BlobStore } from '../domain/ports.ts';
import type { SiteDoc } from '../projections/documents.ts';
import type { ReadModel } from '../projections/read-model.ts';
import { ByteCache } from './byte-cache.ts';
import { decodedPath, resolveRequest, rulesOf } from './site-resolve.ts';

export type SiteServerDeps = { readModel: ReadModel; blobs: BlobStore; manifests: ManifestCache };

const COMPRESSIBLE = /^(text\/|application\/(javascript|json|xml|wasm|manifest\+json|ld\+json|rss\+xml|atom\+xml)|image\/svg\+xml|font\/(ttf|otf))/;
const SMALL = 256 * 1024;

/** Small compressed bodies by `hash:encoding`: HTML and CSS are requested far more often than they change. */
const compressedCache = new ByteCache(64 * 1024 * 1024);

const CODING = { br: /\bbr\b(?!;q=0(\.0*)?\b)/, gzip: /\bgzip\b(?!;q=0(\.0*)?\b)/ } as const;

/** Does `Accept-Encoding` allow this coding (present, and not `;q=0`)? */
function accepts(accept: string | undefined, coding: 'br' | 'gzip'): boolean {
  return !!accept && CODING[coding].test(accept.toLowerCase());
}

function pickEncoding(accept: string | undefined): 'br' | 'gzip' | undefined {
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
 * Small files by hash, served from memory: opening a file per request costs more than
 * the bytes. Content-addressed, so an entry is never stale.
 */
const RAW_MAX = 64 * 1024;
const rawCache = new ByteCache(32 * 1024 * 1024);

async function smallBody(blobs: BlobStore, entry: ManifestEntry): Promise<Buffer | undefined> {
  const hit = rawCache.get(entry.hash);
  if (hit) return hit;
  const body = await blobs.getBytes(entry.hash);
  if (body) rawCache.set(entry.hash, body);
  return body;
}

/**
 * Site documents by path, each tagged with the read model's checkpoint it was read at.
 * The checkpoint is one indexed row, far cheaper than loading and parsing the site
 * document; any applied event moves it, so a publish that has returned (its events are
 * projected) is never answered from an older document, whichever instance projected it.
 */
type CachedSite = { readonly checkpoint: string | undefined; readonly site: SiteDoc | undefined };
const siteCache = new Map<string, CachedSite>();
const SITE_CACHE_MAX = 10_000;

async function liveSite(readModel: ReadModel, path: string): Promise<SiteDoc | undefined> {
  const checkpoint = await readModel.checkpoint();
  const hit = siteCache.get(path);
  if (hit && hit.checkpoint === checkpoint) return hit.site;
  const site = await readModel.getSite(path);
  // Keep it only if nothing was applied while reading (the document may be newer than `checkpoint`, never older).
  if ((await readModel.checkpoint()) === checkpoint) {
    siteCache.delete(path);
    siteCache.set(path, { checkpoint, site });
    if (siteCache.size > SITE_CACHE_MAX) siteCache.delete(siteCache.keys().next().value!);
  }
  return site;
}

/** Serves one request on a site host from the live revision. */
export async function serveSite(deps: SiteServerDeps, address: SiteAddress, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' });
    res.end('method not allowed\n');
    return;
  }
  const site = await liveSite(deps.readModel, fullPath(address));
  // Hidden sites are served (hidden means unlisted); quarantined sites are offline.
  const manifest = site && site.status === 'live' ? await deps.manifests.get(site.live.manifest) : undefined;
  if (!manifest) return plain(res, 404, 'site not found\n');
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const [urlPath, search] = q < 0 ? [url, ''] : [url.slice(0, q), url.slice(q)];
  const rules = await rulesOf(deps.blobs, manifest);
  const resolved = resolveRequest(manifest, rules, urlPath, search);
  const headers = rules?.headers.for(decodedPath(urlPath));
  if (resolved.kind === 'missing') return plain(res, 404, 'not found\n');
  if (resolved.kind === 'redirect') {
    res.writeHead(resolved.status ?? 301, { Location: resolved.location, 'Content-Type': 'text/plain; charset=utf-8' });
    res.end(req.method === 'HEAD' ? undefined : `moved to ${resolved.location}\n`);
    return;
  }
  await sendEntry(deps.blobs, resolved.entry, resolved.status, req, res, headers);
}

async function sendEntry(
  blobs: BlobStore,
  entry: ManifestEntry,
  status: number,
  req: IncomingMessage,
  res: ServerResponse,
  /** From the site's `_headers`: they replace the service's own value of the same header. */
  siteHeaders?: ReadonlyMap<string, string>,
): Promise<void> {
  const etag = `"${entry.hash}"`;
  const isHtml = entry.type === 'text/html';
  const compressible = COMPRESSIBLE.test(entry.type);
  res.setHeader('Content-Type', contentTypeHeader(entry.type));
  res.setHeader('Cache-Control', isHtml ? 'no-cache' : 'public, max-age=300');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  if (compressible) res.setHeader('Vary', 'Accept-Encoding');
  if (siteHeaders) for (const [name, value] of siteHeaders) res.setHeader(name, value);
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
  const encoding = compressible && entry.size > 256 ? pickEncoding(req.headers['accept-encoding']) : undefined;
  if (encoding) {
    res.setHeader('Content-Encoding', encoding);
    if (entry.size <= SMALL) {
      const key = `${entry.hash}:${encoding}`;
      let body = compressedCache.get(key);
      if (!body) {
        const raw = entry.size <= RAW_MAX ? await smallBody(blobs, entry) : await blobs.getBytes(entry.hash);
        if (!raw) return plain(res, 500, 'file missing from the store\n');
        body = encoding === 'br' ? brotliCompressSync(raw, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 5 } }) : gzipSync(raw, { level: 6 });
        compressedCache.set(key, body);
      }
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
  if (entry.size <= RAW_MAX) {
    const body = await smallBody(blobs, entry);
    if (!body) return plain(res, 500, 'file missing from the store\n');
    res.end(body);
    return;
  }
  if (entry.size <= HOT_MAX) {
    const body = await hotBody(blobs, entry);
    if (!body) return plain(res, 500, 'file missing from the store\n');
    res.end(body);
    return;
  }
  const stream = await blobs.get(entry.hash);
  if (!stream) return plain(res, 500, 'file missing from the store\n');
  await pipeline(stream, res).catch(() => res.destroy());
}

/**
 * Mid-size files (images, bundles, fonts up to 2 MiB) by hash, from memory: streaming one
 * from its blob costs a file open, several 256 KiB reads through the thread pool and as
 * many socket writes per request, where a cached body is one write of bytes already in
 * memory. Content-addressed, so never stale; a small budget bounds what it holds.
 */
const HOT_MAX = 2 * 1024 * 1024;
const hotCache = new ByteCache(32 * 1024 * 1024);
/** Loads in progress, so a burst of requests for a cold file reads it once, not once each. */
const hotLoading = new Map<string, Promise<Buffer | undefined>>();

function hotBody(blobs: BlobStore, entry: ManifestEntry): Promise<Buffer | undefined> | Buffer {
  const hit = hotCache.get(entry.hash);
  if (hit) return hit;
  let loading = hotLoading.get(entry.hash);
  if (!loading) {
    loading = blobs.getBytes(entry.hash).then(
      (body) => {
        hotLoading.delete(entry.hash);
        if (body) hotCache.set(entry.hash, body);
        return body;
      },
      (err: unknown) => {
        hotLoading.delete(entry.hash);
        throw err;
      },
    );
    hotLoading.set(entry.hash, loading);
  }
  return loading;
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

function plain(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-cache' });
  res.end(res.req?.method === 'HEAD' ? undefined : text);
}

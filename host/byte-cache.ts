import { brotliCompressSync, constants as zlibConstants, gzipSync } from 'node:zlib';
import type { ManifestEntry } from '../domain/manifest.ts';
import type { BlobStore } from '../domain/ports.ts';

/**
 * A least-recently-inserted cache of byte buffers with a total size budget. Used for
 * content-addressed bodies, which never go stale, so eviction is the only policy needed.
 */
export class ByteCache {
  private readonly entries = new Map<string, Buffer>();
  private bytes = 0;

  constructor(private readonly budget: number) {}

  get(key: string): Buffer | undefined {
    return this.entries.get(key);
  }

  set(key: string, value: Buffer): void {
    const old = this.entries.get(key);
    if (old) this.bytes -= old.length;
    this.entries.set(key, value);
    this.bytes += value.length;
    for (const [k, v] of this.entries) {
      if (this.bytes <= this.budget) break;
      this.entries.delete(k);
      this.bytes -= v.length;
    }
  }
}

/** Bodies of files up to this size are kept whole, by hash: opening a file per request costs more than the bytes. */
export const RAW_MAX = 64 * 1024;
/** Compressed bodies up to this size (of the original) are kept; larger ones are compressed while streaming. */
export const SMALL = 256 * 1024;
/**
 * Mid-size files (images, bundles, fonts up to 2 MiB) by hash, from memory: streaming one
 * from its blob costs a file open, several 256 KiB reads through the thread pool and as
 * many socket writes per request, where a cached body is one write of bytes already in
 * memory. Content-addressed, so never stale; a small budget bounds what it holds.
 */
export const HOT_MAX = 2 * 1024 * 1024;

export type Coding = 'br' | 'gzip';

/**
 * The bodies one site server keeps in memory (one per service instance: two instances in
 * one process keep their own, within their own budgets).
 */
export type Bodies = {
  /** The whole body of a file of up to HOT_MAX bytes, or of a compressed one of up to SMALL, if it is in memory now. */
  cachedBody(entry: ManifestEntry, coding: Coding | undefined): Buffer | undefined;
  /** The body of a file of up to HOT_MAX bytes, from memory or read once and kept. */
  wholeBody(blobs: BlobStore, entry: ManifestEntry): Promise<Buffer | undefined> | Buffer;
  /** The compressed body of a file of up to SMALL bytes, compressed once and kept. */
  compressedBody(blobs: BlobStore, entry: ManifestEntry, coding: Coding): Promise<Buffer | undefined>;
};

export function createBodies(): Bodies {
  const rawCache = new ByteCache(32 * 1024 * 1024);
  const hotCache = new ByteCache(32 * 1024 * 1024);
  /** Small compressed bodies by `hash:encoding`: HTML and CSS are requested far more often than they change. */
  const compressedCache = new ByteCache(64 * 1024 * 1024);
  /** Loads in progress, so a burst of requests for a cold file reads it once, not once each. */
  const hotLoading = new Map<string, Promise<Buffer | undefined>>();

  function cachedBody(entry: ManifestEntry, coding: Coding | undefined): Buffer | undefined {
    if (coding) return entry.size <= SMALL ? compressedCache.get(`${entry.hash}:${coding}`) : undefined;
    return entry.size <= RAW_MAX ? rawCache.get(entry.hash) : entry.size <= HOT_MAX ? hotCache.get(entry.hash) : undefined;
  }

  function wholeBody(blobs: BlobStore, entry: ManifestEntry): Promise<Buffer | undefined> | Buffer {
    const cache = entry.size <= RAW_MAX ? rawCache : hotCache;
    const hit = cache.get(entry.hash);
    if (hit) return hit;
    let loading = hotLoading.get(entry.hash);
    if (!loading) {
      loading = blobs.getBytes(entry.hash).then(
        (body) => {
          hotLoading.delete(entry.hash);
          if (body) cache.set(entry.hash, body);
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

  async function compressedBody(blobs: BlobStore, entry: ManifestEntry, coding: Coding): Promise<Buffer | undefined> {
    const key = `${entry.hash}:${coding}`;
    const hit = compressedCache.get(key);
    if (hit) return hit;
    const raw = entry.size <= HOT_MAX ? await wholeBody(blobs, entry) : await blobs.getBytes(entry.hash);
    if (!raw) return undefined;
    const body = coding === 'br' ? brotliCompressSync(raw, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 5 } }) : gzipSync(raw, { level: 6 });
    compressedCache.set(key, body);
    return body;
  }

  return { cachedBody, wholeBody, compressedBody };
}

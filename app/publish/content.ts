import mime from 'mime-types';
import { ValidationError } from '../../domain/errors.ts';
import { FAVICON_SCAN_BYTES, faviconCandidates, faviconType, sniffImageType } from '../../domain/favicon.ts';
import type { ManifestEntry } from '../../domain/manifest.ts';
import { MAX_RULES_FILE_BYTES, parseSiteRules, serializeSiteRules } from '../../domain/rules/site-rules.ts';
import type { AppDeps } from '../deps.ts';

/** What a publish derives from the files it stored: the favicon, the parsed rules, each file's type. */

export async function detectFavicon(
  deps: AppDeps,
  files: ReadonlyMap<string, ManifestEntry>,
  created: string[],
): Promise<{ hash: string; type: string } | undefined> {
  const index = files.get('index.html')!;
  const html = (await readHead(deps, index.hash, FAVICON_SCAN_BYTES, index.size)).toString('utf8');
  for (const candidate of faviconCandidates(html)) {
    if (candidate.kind === 'data') {
      const type = faviconType(sniffImageType(candidate.bytes, candidate.type));
      if (!type) continue;
      const put = await deps.blobs.putBytes(candidate.bytes);
      if (put.created) created.push(put.hash);
      return { hash: put.hash, type };
    }
    const entry = files.get(candidate.path);
    if (!entry) continue;
    const type = faviconType(sniffImageType(await readHead(deps, entry.hash, 512, entry.size), entry.type));
    if (type) return { hash: entry.hash, type };
  }
  return undefined;
}

/** Parses the revision's `_redirects` / `_headers` (400 naming file and line) and stores them as one blob. */
export async function storeSiteRules(deps: AppDeps, files: ReadonlyMap<string, ManifestEntry>, created: string[]): Promise<string | undefined> {
  const read = async (name: string): Promise<string | undefined> => {
    const entry = files.get(name);
    if (!entry) return undefined;
    if (entry.size > MAX_RULES_FILE_BYTES) throw new ValidationError(`${name} is larger than ${MAX_RULES_FILE_BYTES} bytes`);
    return (await deps.blobs.getBytes(entry.hash))?.toString('utf8') ?? '';
  };
  const rules = parseSiteRules({ redirects: await read('_redirects'), headers: await read('_headers') });
  if (!rules) return undefined;
  const put = await deps.blobs.putBytes(serializeSiteRules(rules));
  if (put.created) created.push(put.hash);
  return put.hash;
}

/** The first `bytes` of a blob (a favicon's magic bytes, the part of index.html we scan). */
async function readHead(deps: AppDeps, hash: string, bytes: number, size: number): Promise<Buffer> {
  // An empty file is an ordinary file (spec §4): there is no first byte to ask the store for.
  if (size === 0) return Buffer.alloc(0);
  const stream = await deps.blobs.get(hash, { start: 0, end: bytes - 1 });
  if (!stream) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

/** Content type stored in the manifest, from the file extension. */
export function contentType(path: string): string {
  const type = mime.lookup(path) || 'application/octet-stream';
  return type;
}

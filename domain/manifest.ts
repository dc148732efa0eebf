import { ValidationError } from './errors.ts';

/** One file of a revision. */
export type ManifestEntry = { readonly hash: string; readonly size: number; readonly type: string };

/**
 * A revision's file list (path → entry), itself stored as a content-addressed blob; with the
 * hash of its parsed `_redirects` / `_headers` when it has either (spec §11), so the rules
 * live and die with the revision.
 */
export type Manifest = { readonly files: ReadonlyMap<string, ManifestEntry>; readonly rules?: string };

type ManifestJson = { v: 1; files: [path: string, hash: string, size: number, type: string][]; rules?: string };

/** Canonical bytes (sorted by path), so identical content gives an identical manifest hash. */
export function serializeManifest(files: ReadonlyMap<string, ManifestEntry>, rules?: string): Buffer {
  const rows = [...files.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([path, e]): [string, string, number, string] => [path, e.hash, e.size, e.type]);
  const json: ManifestJson = { v: 1, files: rows, ...(rules ? { rules } : {}) };
  return Buffer.from(JSON.stringify(json));
}

export function parseManifest(bytes: Buffer): Manifest {
  const json = JSON.parse(bytes.toString('utf8')) as ManifestJson;
  if (json.v !== 1 || !Array.isArray(json.files)) throw new Error('unknown manifest format');
  return { files: new Map(json.files.map(([path, hash, size, type]) => [path, { hash, size, type }])), ...(json.rules ? { rules: json.rules } : {}) };
}

/**
 * If every path sits under one common top-level directory, strips it (archives made
 * with `tar czf site.tgz site/` or GitHub's zip downloads). Returns the paths unchanged otherwise.
 */
export function stripCommonTopFolder<T>(files: ReadonlyMap<string, T>): Map<string, T> {
  let top: string | undefined;
  for (const path of files.keys()) {
    const slash = path.indexOf('/');
    if (slash < 0) return new Map(files);
    const first = path.slice(0, slash);
    if (top === undefined) top = first;
    else if (top !== first) return new Map(files);
  }
  if (top === undefined) return new Map(files);
  const cut = top.length + 1;
  return new Map([...files.entries()].map(([p, v]) => [p.slice(cut), v]));
}

/** Checks the rules a finished file set must meet before it can become a revision. */
export function assertPublishable(files: ReadonlyMap<string, unknown>): void {
  if (files.size === 0) throw new ValidationError('the archive contains no files');
  if (!files.has('index.html')) throw new ValidationError('the archive has no index.html at its root');
}

export function totalSize(files: ReadonlyMap<string, ManifestEntry>): number {
  let size = 0;
  for (const e of files.values()) size += e.size;
  return size;
}

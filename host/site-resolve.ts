import type { Manifest, ManifestEntry } from '../domain/manifest.ts';
import type { BlobStore } from '../domain/ports.ts';
import { compileSiteRules, RULE_FILES, type CompiledRules } from '../domain/rules/site-rules.ts';

/**
 * Which file of a revision answers a URL on a site host (spec §6 and §11): index files,
 * pretty URLs, directory redirects, the site's `_redirects`, its 404.html. Pure but for
 * reading the rules blob once per manifest.
 */

const directories = new WeakMap<Manifest, Set<string>>();

function dirsOf(manifest: Manifest): Set<string> {
  let dirs = directories.get(manifest);
  if (!dirs) {
    dirs = new Set();
    for (const path of manifest.files.keys()) {
      for (let i = path.indexOf('/'); i >= 0; i = path.indexOf('/', i + 1)) dirs.add(path.slice(0, i));
    }
    directories.set(manifest, dirs);
  }
  return dirs;
}

export type Resolved = { kind: 'file'; entry: ManifestEntry; status: 200 | 404 } | { kind: 'redirect'; location: string; status?: number } | { kind: 'missing' };

/** Maps a URL path to a file of the revision (spec §6): index files, pretty URLs, 404.html. */
export function resolvePath(manifest: Manifest, urlPath: string, search: string): Resolved {
  return findFile(manifest, urlPath, search) ?? notFound(manifest);
}

/** A file that answers the path by the rules of §6 (no 404.html), or undefined. */
function findFile(manifest: Manifest, urlPath: string, search: string): Resolved | undefined {
  let path: string;
  try {
    path = decodeURIComponent(urlPath);
  } catch {
    return undefined;
  }
  if (path.includes('\0') || path.includes('\\')) return undefined;
  const segments = path.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.includes('..')) return undefined;
  const rel = segments.join('/');
  // The rules files configure the site; they are never served themselves (spec §11).
  if (RULE_FILES.has(rel)) return undefined;
  const files = manifest.files;
  if (path.endsWith('/') || rel === '') {
    const entry = files.get(rel === '' ? 'index.html' : `${rel}/index.html`);
    return entry ? { kind: 'file', entry, status: 200 } : undefined;
  }
  const exact = files.get(rel);
  if (exact) return { kind: 'file', entry: exact, status: 200 };
  if (dirsOf(manifest).has(rel)) return { kind: 'redirect', location: `/${segments.map(encodeURIComponent).join('/')}/${search}` };
  const pretty = files.get(`${rel}.html`);
  if (pretty) return { kind: 'file', entry: pretty, status: 200 };
  return undefined;
}

/**
 * A request no file answers, through the revision's `_redirects` (spec §11), tried before
 * the site's 404.html: a redirect, or another file of the site served as 200 or 404.
 */
function applyRedirects(manifest: Manifest, rules: CompiledRules | undefined, urlPath: string, search: string): Resolved | undefined {
  const outcome = rules?.redirects.resolve(decodedPath(urlPath), search);
  if (!outcome) return undefined;
  if (outcome.kind === 'redirect') return { kind: 'redirect', location: outcome.location, status: outcome.status };
  const target = findFile(manifest, outcome.path, '');
  return target?.kind === 'file' ? { ...target, status: outcome.status } : { kind: 'missing' };
}

export function decodedPath(urlPath: string): string {
  try {
    return decodeURIComponent(urlPath);
  } catch {
    return urlPath;
  }
}

/** A revision's compiled rules, once per manifest (a manifest never changes). */
const compiledRules = new WeakMap<Manifest, Promise<CompiledRules | undefined>>();

export function rulesOf(blobs: BlobStore, manifest: Manifest): Promise<CompiledRules | undefined> {
  if (!manifest.rules) return Promise.resolve(undefined);
  let pending = compiledRules.get(manifest);
  if (!pending) {
    pending = blobs.getBytes(manifest.rules).then((bytes) => (bytes ? compileSiteRules(bytes) : undefined));
    compiledRules.set(manifest, pending);
  }
  return pending;
}

function notFound(manifest: Manifest): Resolved {
  const page = manifest.files.get('404.html');
  return page ? { kind: 'file', entry: page, status: 404 } : { kind: 'missing' };
}

/** What answers a request: a file, else the site's `_redirects`, else its 404.html. */
export function resolveRequest(manifest: Manifest, rules: CompiledRules | undefined, urlPath: string, search: string): Resolved {
  return findFile(manifest, urlPath, search) ?? applyRedirects(manifest, rules, urlPath, search) ?? notFound(manifest);
}

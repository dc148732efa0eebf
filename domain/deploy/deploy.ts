import type { Identity } from '../auth.ts';
import { ConflictError, NotFoundError, TooLargeError, ValidationError } from '../errors.ts';
import { createPathRegistry, DEPLOY_WORDING, shown } from '../file-paths.ts';
import type { SiteAddress } from '../paths.ts';
import type { MetaInput } from '../site/meta.ts';

/**
 * An incremental deploy (spec §10): a manifest of digests sent first, the contents the
 * site lacks uploaded one by one, then one publish through the same command as an archive.
 * It is short-lived operational state, not history: the site's events record the publish.
 */
export type DeployStatus = 'open' | 'publishing' | 'published';

export type Deploy = {
  readonly id: string;
  readonly address: SiteAddress;
  /** The publish `meta` (spec §4), validated when the deploy was created. For a preview, only what describes it (title, description, repo). */
  readonly meta: MetaInput;
  /** Set when the deploy publishes this preview of the site instead of the live site (spec §14). */
  readonly preview?: string;
  /**
   * The key that created it: only it (or an admin) may use the deploy. Absent when a
   * signed-in admin created it in the portal: then only admins may use it.
   */
  readonly keyId?: number;
  /** Hash of the deploy manifest blob (path → digest, `serializeDeployManifest`). */
  readonly manifest: string;
  /** Number of paths in the manifest. */
  readonly files: number;
  readonly createdAt: string;
  readonly expiresAt: string;
  readonly status: DeployStatus;
  /** Bytes of the uploads counted against SITES_MAX_EXTRACT_BYTES (each required digest once). */
  readonly uploadedBytes: number;
  /** The revision it became, once published. */
  readonly revision?: string;
};

/**
 * One distinct digest of a deploy manifest. `required`: no revision of the site held it
 * when the deploy was created, so it must be uploaded. `size` is known for a digest the
 * site holds (from its manifest) and for a required one once it was uploaded.
 */
export type DeployBlob = { readonly hash: string; readonly required: boolean; readonly size?: number };

/** What recording an upload did: counted it, found it counted (or not required) already, or refused it. */
export type UploadRecord = 'recorded' | 'already' | 'over_limit' | 'closed';

const DIGEST = /^[0-9a-f]{64}$/;

export const isDigest = (value: unknown): boolean => typeof value === 'string' && DIGEST.test(value);

/** Digests on the URL of an upload: 64 lower-case hex characters (also the blob store's path guard). */
export function assertDigest(value: string): void {
  if (!isDigest(value)) throw new ValidationError(`${shown(value.slice(0, 80))} is not a SHA-256 digest (64 lowercase hex characters)`);
}

/**
 * The `files` of a deploy request: the archive path rules of spec §4 (relative, no `..`,
 * no NUL or backslash, no duplicates, no file that is also a folder), digests of 64
 * lower-case hex characters, `index.html` at the root, at most `maxEntries` paths.
 * Paths are normalised as archive entries are (`./a//b` → `a/b`); sorted by path.
 */
export function parseDeployFiles(files: unknown, maxEntries: number): Map<string, string> {
  if (typeof files !== 'object' || files === null || Array.isArray(files)) {
    throw new ValidationError('files must be a JSON object of path → SHA-256 digest');
  }
  const entries = Object.entries(files as Record<string, unknown>);
  if (entries.length > maxEntries) {
    throw new TooLargeError(`files lists ${entries.length} paths, more than the limit of ${maxEntries} entries`);
  }
  const registry = createPathRegistry(DEPLOY_WORDING);
  const out = new Map<string, string>();
  for (const [raw, digest] of entries) {
    // An archive says "folder" with a trailing slash; a file of a manifest cannot be one.
    if (raw.endsWith('/')) throw new ValidationError(`file ${shown(raw)} ends with a slash: files lists files, not folders`);
    const path = registry.addFile(raw);
    if (!isDigest(digest)) throw new ValidationError(`file ${shown(raw)}: the digest must be 64 lowercase hex characters (its SHA-256)`);
    out.set(path, digest as string);
  }
  if (out.size === 0) throw new ValidationError('files is empty: a site needs at least index.html');
  if (!out.has('index.html')) throw new ValidationError('files has no "index.html" at the root (the site\'s home page)');
  return new Map([...out].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

type DeployManifestJson = { v: 1; files: [path: string, digest: string][] };

/** The manifest of a deploy as a blob: canonical bytes (sorted by path). */
export function serializeDeployManifest(files: ReadonlyMap<string, string>): Buffer {
  const rows = [...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Buffer.from(JSON.stringify({ v: 1, files: rows } satisfies DeployManifestJson));
}

export function parseDeployManifest(bytes: Buffer): Map<string, string> {
  const json = JSON.parse(bytes.toString('utf8')) as DeployManifestJson;
  if (json.v !== 1 || !Array.isArray(json.files)) throw new Error('unknown deploy manifest format');
  return new Map(json.files);
}

/**
 * The deploy as this caller may use it: only the key that created it or an admin key,
 * and only until it expires (a published one stays answerable until then). Anything
 * else is "no such deploy", so a deploy id reveals nothing to another key.
 */
export function accessibleDeploy(deploy: Deploy | undefined, identity: Identity, now: Date, id: string): Deploy {
  const mine = deploy && (identity.principal.kind === 'admin' || (identity.keyId !== undefined && identity.keyId === deploy.keyId));
  const expired = deploy && Date.parse(deploy.expiresAt) <= now.getTime();
  if (!deploy || !mine || expired) throw new NotFoundError(`no deploy ${shown(id)} (unknown, expired, or created by another key)`);
  return deploy;
}

/** Uploads and the publish need a deploy that is still open. */
export function assertOpen(deploy: Deploy): void {
  if (deploy.status === 'published') throw new ConflictError(`deploy ${deploy.id} is already published (revision ${deploy.revision ?? 'unknown'}); start a new deploy`);
  if (deploy.status === 'publishing') throw new ConflictError(`deploy ${deploy.id} is being published`);
}

/** Required digests not uploaded yet. */
export function missingDigests(blobs: readonly DeployBlob[]): string[] {
  return blobs.filter((b) => b.required && b.size === undefined).map((b) => b.hash);
}

/** Publish with contents still missing (spec §10): 409 `conflict` with the digests. */
export class MissingFilesError extends ConflictError {
  constructor(readonly missing: readonly string[]) {
    super(`${missing.length} required file${missing.length === 1 ? ' has' : 's have'} not been uploaded yet`);
  }
}

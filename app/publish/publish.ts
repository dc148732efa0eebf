import type { Readable } from 'node:stream';
import mime from 'mime-types';
import type { Identity } from '../../domain/auth.ts';
import { DomainError, ValidationError } from '../../domain/errors.ts';
import type { RevisionInfo } from '../../domain/events.ts';
import { FAVICON_SCAN_BYTES, faviconCandidates, faviconType, sniffImageType } from '../../domain/favicon.ts';
import { assertPublishable, serializeManifest, stripCommonTopFolder, totalSize, type Manifest, type ManifestEntry } from '../../domain/manifest.ts';
import { changeCounts, diffManifests } from '../../domain/manifest-diff.ts';
import { loadManifest, withChangeCounts } from '../queries/changes.ts';
import { MAX_RULES_FILE_BYTES, parseSiteRules, serializeSiteRules } from '../../domain/rules/site-rules.ts';
import { fullPath, type SiteAddress } from '../../domain/paths.ts';
import { nowNanos } from '../../domain/revision-id.ts';
import { decideSite, inTrash, needsNewSiteId } from '../../domain/site/decide.ts';
import type { MetaInput } from '../../domain/site/meta.ts';
import type { SiteDoc } from '../../projections/documents.ts';
import { siteCommands } from '../aggregates.ts';
import type { CommandDeps } from '../deps.ts';
import { allocateId } from '../ids.ts';
import { collectDropped, deleteUnreferenced } from '../jobs/gc.ts';
import { storeFiles, type AlreadyStored } from './store-files.ts';

/** Where to publish and with which metadata: parsed from the request by api/requests.ts, `publish` checked. */
export type PublishTarget = { readonly address: SiteAddress; readonly meta: MetaInput };
export type IncomingFile = { readonly path: string; readonly content: Readable | AsyncIterable<Uint8Array> } | AlreadyStored;

/** `unchanged`: the files and meta were the live ones, so nothing was recorded (spec §4). */
export type PublishOutcome = { readonly site: SiteDoc; readonly revision: RevisionInfo; readonly unchanged: boolean };

/**
 * Stores every file once under its hash, writes the manifest, detects the favicon,
 * then appends the site's events. The switch is atomic (one append); on any failure the
 * blobs this publish created and nothing else references are deleted again.
 */
export async function publishFiles(
  deps: CommandDeps,
  identity: Identity,
  target: PublishTarget,
  files: AsyncIterable<IncomingFile>,
  /** Awaited just before the switch: lets the caller veto (e.g. a second file part arrived). */
  beforeCommit: () => Promise<void> = async () => undefined,
): Promise<PublishOutcome> {
  const created: string[] = [];
  let dropped: { manifest: string; favicon?: string }[] = [];
  let appending = false;
  try {
    // Refused before any byte is stored; decided again on the stream, which settles a race.
    const current = await deps.readModel.getSite(fullPath(target.address));
    if (current?.status === 'quarantined') throw inTrash(target.address);
    const outcome = await deps.gate.shared(async () => {
      const entries = new Map<string, ManifestEntry>();
      let duplicate: string | undefined;
      await storeFiles(deps.blobs, files, ({ path, put }) => {
        if (put.created) created.push(put.hash);
        if (entries.has(path)) duplicate ??= path;
        entries.set(path, { hash: put.hash, size: put.size, type: contentType(path) });
      });
      if (duplicate !== undefined) throw new ValidationError(`the archive contains ${duplicate} twice`);
      const stripped = stripCommonTopFolder(entries);
      assertPublishable(stripped);
      const rules = await storeSiteRules(deps, stripped, created);
      const manifestBytes = serializeManifest(stripped, rules);
      const manifest = await deps.blobs.putBytes(manifestBytes);
      if (manifest.created) created.push(manifest.hash);
      // The rules blob is indexed with the manifest: kept exactly as long as the revision is.
      await deps.readModel.indexManifest(manifest.hash, [...new Set([...stripped.values()].map((e) => e.hash)), ...(rules ? [rules] : [])]);
      const favicon = await detectFavicon(deps, stripped, created);
      const content: Omit<RevisionInfo, 'id'> = {
        manifest: manifest.hash,
        files: stripped.size,
        size: totalSize(stripped),
        ...(favicon ? { favicon } : {}),
      };
      await beforeCommit();
      appending = true;
      return commitPublish(deps, identity, target, content, { files: stripped });
    });
    dropped = outcome.dropped;
    const site = await deps.readModel.getSite(fullPath(target.address));
    if (!site) throw new Error('published site missing from the read model');
    if (outcome.unchanged && created.length > 0) await deps.gate.exclusive(() => deleteUnreferenced(deps, created)).catch(() => undefined);
    return { site, revision: outcome.revision, unchanged: outcome.unchanged };
  } catch (err) {
    // A domain error means nothing was appended. Any other failure during the append (e.g. the
    // read model was slow to confirm) may have committed the revision: leave its blobs to `sites gc`.
    const nothingAppended = !appending || err instanceof DomainError;
    if (created.length > 0 && nothingAppended) await deps.gate.exclusive(() => deleteUnreferenced(deps, created)).catch(() => undefined);
    throw err;
  } finally {
    if (dropped.length > 0) await collectDropped(deps, dropped);
  }
}

async function commitPublish(
  deps: CommandDeps,
  identity: Identity,
  target: PublishTarget,
  content: Omit<RevisionInfo, 'id'>,
  manifest: Manifest,
): Promise<{ revision: RevisionInfo; unchanged: boolean; dropped: { manifest: string; favicon?: string }[] }> {
  const { state, events } = await siteCommands(deps).handle(target.address, identity.actor, async (state) => {
    const newSiteId = needsNewSiteId(state) ? await allocateId(deps.events, 'site', identity.actor, deps.now()) : undefined;
    const decided = decideSite(
      { type: 'PublishSite', address: target.address, meta: target.meta, content, nowNanos: nowNanos(), newSiteId, versioning: deps.versioning },
      state,
    );
    if (!decided.some((e) => e.type === 'SitePublished')) return decided;
    // The changelog's counts, against the revision this one replaces (none for a new incarnation).
    const replaced = newSiteId === undefined && state.live ? await loadManifest(deps.blobs, state.live.manifest) : undefined;
    return withChangeCounts(decided, 'SitePublished', changeCounts(diffManifests(replaced, manifest)));
  });
  const published = events.find((e) => e.type === 'SitePublished');
  const dropped = events.flatMap((e) => (e.type === 'RevisionDropped' ? [{ manifest: e.data.manifest, ...(e.data.favicon ? { favicon: e.data.favicon } : {}) }] : []));
  if (published?.type === 'SitePublished') return { revision: published.data.revision, unchanged: false, dropped };
  // The live files again: the live revision answers; `unchanged` unless the meta was patched.
  return { revision: state.live!, unchanged: events.length === 0, dropped };
}

async function detectFavicon(
  deps: CommandDeps,
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
async function storeSiteRules(deps: CommandDeps, files: ReadonlyMap<string, ManifestEntry>, created: string[]): Promise<string | undefined> {
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
async function readHead(deps: CommandDeps, hash: string, bytes: number, size: number): Promise<Buffer> {
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

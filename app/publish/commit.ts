import type { Actor } from '../../domain/events.ts';
import { DomainError, ValidationError } from '../../domain/errors.ts';
import type { RevisionInfo } from '../../domain/events.ts';
import { assertPublishable, serializeManifest, stripCommonTopFolder, totalSize, type Manifest, type ManifestEntry } from '../../domain/manifest.ts';
import { changeCounts, diffManifests } from '../../domain/manifest-diff.ts';
import { fullPath, type SiteAddress } from '../../domain/paths.ts';
import { nowNanos } from '../../domain/revision-id.ts';
import { inTrash, needsNewSiteId } from '../../domain/site/decide.ts';
import type { MetaInput } from '../../domain/site/meta.ts';
import type { SiteDoc } from '../../projections/documents.ts';
import { siteCommands } from '../aggregates.ts';
import type { AppDeps } from '../deps.ts';
import { allocateId } from '../ids.ts';
import { collectDropped, deleteUnreferenced, type DroppedRevision } from '../jobs/gc.ts';
import { publishable } from '../../domain/site/lifecycle.ts';
import { contentType, detectFavicon, storeSiteRules } from './content.ts';
import { storeFiles, type IncomingFile } from './store-files.ts';

/** Where to publish and with which metadata, once `publish` was checked there (target.ts). */
export type PublishTarget = { readonly address: SiteAddress; readonly meta: MetaInput };

/** `unchanged`: the files and meta were the live ones, so nothing was recorded (spec §4). */
export type PublishOutcome = { readonly site: SiteDoc; readonly revision: RevisionInfo; readonly unchanged: boolean };

/** A revision's files once stored: the content its event records, and the manifest they make. */
export type StoredRevision = { readonly content: Omit<RevisionInfo, 'id'>; readonly manifest: Manifest };

/** What a commit appended: its answer, whether it recorded nothing, and the revisions it no longer retains. */
export type Committed<R> = { readonly result: R; readonly unchanged: boolean; readonly dropped: readonly DroppedRevision[] };

/**
 * The one publish path, behind every use case that publishes (an archive, a deploy, an MCP
 * tool's files), which have authorized it: stores every file once under its hash, writes
 * the manifest, detects the favicon, then appends the site's events as `actor`. The switch
 * is atomic (one append); on any failure the blobs this publish created and nothing else
 * references are deleted again.
 */
export async function commitFiles(
  deps: AppDeps,
  actor: Actor,
  target: PublishTarget,
  files: AsyncIterable<IncomingFile>,
  /** Awaited just before the switch: lets the caller veto (e.g. a second file part arrived). */
  beforeCommit: () => Promise<void> = async () => undefined,
): Promise<PublishOutcome> {
  return storeAndCommit(deps, files, {
    // Refused before any byte is stored; decided again on the stream, which settles a race.
    precheck: async () => {
      const current = await deps.queries.getSite(fullPath(target.address));
      if (current && !publishable(current.status)) throw inTrash(target.address);
    },
    beforeCommit,
    commit: async (stored) => {
      const outcome = await commitPublish(deps, actor, target, stored.content, stored.manifest);
      const site = await deps.queries.getSite(fullPath(target.address));
      if (!site) throw new Error('published site missing from the read model');
      return { result: { site, revision: outcome.revision, unchanged: outcome.unchanged }, unchanged: outcome.unchanged, dropped: outcome.dropped };
    },
  });
}

/**
 * Stores a revision's files and commits it with `commit` (a site publish, a preview's): every
 * file once under its hash, the manifest, the parsed rules and the favicon, under the shared
 * publish gate, then the commit. Blobs this publish created are deleted again when it fails
 * before anything was appended, or when it recorded nothing (`unchanged`); the revisions the
 * commit no longer retains are collected afterwards.
 */
export async function storeAndCommit<R>(
  deps: AppDeps,
  files: AsyncIterable<IncomingFile>,
  steps: {
    readonly precheck: () => Promise<void>;
    readonly beforeCommit: () => Promise<void>;
    readonly commit: (stored: StoredRevision) => Promise<Committed<R>>;
  },
): Promise<R> {
  const created: string[] = [];
  let dropped: readonly DroppedRevision[] = [];
  let appending = false;
  try {
    await steps.precheck();
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
      await deps.blobIndex.indexManifest(manifest.hash, [...new Set([...stripped.values()].map((e) => e.hash)), ...(rules ? [rules] : [])]);
      const favicon = await detectFavicon(deps, stripped, created);
      const content: Omit<RevisionInfo, 'id'> = {
        manifest: manifest.hash,
        files: stripped.size,
        size: totalSize(stripped),
        ...(favicon ? { favicon } : {}),
      };
      await steps.beforeCommit();
      appending = true;
      return steps.commit({ content, manifest: { files: stripped, ...(rules ? { rules } : {}) } });
    });
    dropped = outcome.dropped;
    if (outcome.unchanged && created.length > 0) await deps.gate.exclusive(() => deleteUnreferenced(deps, created)).catch(() => undefined);
    return outcome.result;
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
  deps: AppDeps,
  actor: Actor,
  target: PublishTarget,
  content: Omit<RevisionInfo, 'id'>,
  manifest: Manifest,
): Promise<{ revision: RevisionInfo; unchanged: boolean; dropped: { manifest: string; favicon?: string }[] }> {
  const { state, events } = await siteCommands(deps).handle(target.address, actor, async (state) => {
    const same = state.status === 'live' && state.live?.manifest === content.manifest;
    const newSiteId = needsNewSiteId(state) ? await allocateId(deps.events, 'site', actor, deps.now()) : undefined;
    // The changelog's counts, against the revision this one replaces (none for a new incarnation).
    const replaced = newSiteId === undefined && state.live && !same ? await deps.manifests.get(state.live.manifest) : undefined;
    const changes = same ? undefined : changeCounts(diffManifests(replaced, manifest));
    return { type: 'PublishSite', address: target.address, meta: target.meta, content, nowNanos: nowNanos(), newSiteId, versioning: deps.versioning, changes };
  });
  const published = events.find((e) => e.type === 'SitePublished');
  const dropped = events.flatMap((e) => (e.type === 'RevisionDropped' ? [{ manifest: e.data.manifest, ...(e.data.favicon ? { favicon: e.data.favicon } : {}) }] : []));
  if (published?.type === 'SitePublished') return { revision: published.data.revision, unchanged: false, dropped };
  // The live files again: the live revision answers; `unchanged` unless the meta was patched.
  return { revision: state.live!, unchanged: events.length === 0, dropped };
}

import { diffManifests, type ManifestDiff } from '../../domain/manifest-diff.ts';
import type { Manifest } from '../../domain/manifest.ts';
import { NotFoundError } from '../../domain/errors.ts';
import type { RevisionInfo } from '../../domain/site/events.ts';
import { findPreview } from '../../domain/site/previews.ts';
import type { SiteDoc } from '../../projections/documents.ts';
import type { Queries } from '../../projections/queries.ts';
import { findRevision, revisionsOf } from './sites.ts';

type Manifests = { get(hash: string): Promise<Manifest | undefined> };

/** What a set of revisions costs: the sum of their sizes against each distinct content once. */
export type StorageFigures = { readonly logical_bytes: number; readonly stored_bytes: number };

async function manifestOf(manifests: Manifests, hash: string): Promise<Manifest> {
  const manifest = await manifests.get(hash);
  if (!manifest) throw new NotFoundError('a revision manifest is missing from the store');
  return manifest;
}

/** Adds the revisions' contents to `seen` (hash → size) and returns their logical size. */
async function addRevisions(site: SiteDoc, manifests: Manifests, seen: Map<string, number>): Promise<number> {
  let logical = 0;
  for (const { info } of revisionsOf(site)) {
    logical += info.size;
    for (const entry of (await manifestOf(manifests, info.manifest)).files.values()) seen.set(entry.hash, entry.size);
  }
  return logical;
}

const stored = (seen: Map<string, number>) => [...seen.values()].reduce((n, s) => n + s, 0);

/** The storage picture of one site: every retained revision's logical size against what the shared store holds for them. */
export async function siteStorage(site: SiteDoc, manifests: Manifests): Promise<StorageFigures> {
  const seen = new Map<string, number>();
  const logical = await addRevisions(site, manifests, seen);
  return { logical_bytes: logical, stored_bytes: stored(seen) };
}

/**
 * The whole service: every retained revision of every site (live and in the trash). Reads
 * each retained manifest once (cached by hash), so it costs about as much as listing files.
 */
export async function storageOfAll(readModel: Queries, manifests: Manifests): Promise<StorageFigures & { sites: number; revisions: number }> {
  const live = (await readModel.listSites({ includeHidden: true, limit: 1, offset: 0, sort: 'slug' })).all;
  const sites = [...live, ...(await readModel.listQuarantined())];
  const seen = new Map<string, number>();
  let logical = 0;
  let revisions = 0;
  for (const site of sites) {
    logical += await addRevisions(site, manifests, seen);
    revisions += revisionsOf(site).length;
  }
  return { sites: sites.length, revisions, logical_bytes: logical, stored_bytes: stored(seen) };
}

/** Spec §12: two retained revisions of a site compared by content hash; `current` names the live one. */
export async function diffRevisions(site: SiteDoc, a: string, b: string, manifests: Manifests): Promise<{ from: string; to: string } & ManifestDiff> {
  const from = diffSide(site, a);
  const to = diffSide(site, b);
  const diff = diffManifests(await manifestOf(manifests, from.manifest), await manifestOf(manifests, to.manifest));
  return { from: from.id, to: to.id, ...diff };
}

/** A side of a diff (spec §12, §14): a retained revision, `current`, or `preview:<name>` (the preview's current content). */
function diffSide(site: SiteDoc, ref: string): RevisionInfo {
  if (!ref.startsWith(PREVIEW_REF)) return findRevision(site, ref);
  const name = ref.slice(PREVIEW_REF.length);
  const preview = findPreview(site.previews, name);
  if (!preview) throw new NotFoundError(`site ${site.path} has no preview ${name}`);
  return preview.revision;
}

const PREVIEW_REF = 'preview:';

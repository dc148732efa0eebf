import type { SiteDoc } from '../../projections/documents.ts';

/**
 * Values both read-model adapters derive from a site document for their indexes.
 * Lower-casing happens here, in JavaScript, so the two engines agree on Unicode case
 * folding (SQLite's `lower()` only folds ASCII) and the query lower-cases `q` the same way.
 */
export type SiteIndexFields = {
  readonly titleLc: string;
  readonly descriptionLc: string;
  readonly tags: readonly string[];
  readonly tagsLc: readonly string[];
  /** Empty string when the site has no date, so the sort can put those last. */
  readonly date: string;
  readonly hidden: boolean;
};

export function siteIndexFields(doc: SiteDoc): SiteIndexFields {
  const tags = [...new Set(doc.meta.tags ?? [])];
  return {
    titleLc: doc.meta.title.toLowerCase(),
    descriptionLc: (doc.meta.description ?? '').toLowerCase(),
    tags,
    tagsLc: tags.map((t) => t.toLowerCase()),
    date: doc.meta.date ?? '',
    hidden: doc.meta.hidden,
  };
}

/** A revision the site still retains (live, archived, or a preview's): its blobs must not be collected. */
export type RetainedRevision = { readonly id: string; readonly manifest: string; readonly favicon: string | null };

export function retainedRevisions(doc: SiteDoc): RetainedRevision[] {
  const seen = new Set<string>();
  const out: RetainedRevision[] = [];
  // A preview holds its files like a revision does (spec §14), until it is removed, expires or the site is purged.
  const previews = doc.previews?.map((p) => p.revision) ?? [];
  for (const r of [doc.live, ...doc.archived, ...previews]) {
    if (seen.has(r.id)) continue;
    seen.add(r.id);
    out.push({ id: r.id, manifest: r.manifest, favicon: r.favicon?.hash ?? null });
  }
  return out;
}

/**
 * When the site's first preview expires (the expiry job's range), or null when it has none:
 * ISO-8601 UTC instants, which sort as strings.
 */
export function previewExpiry(doc: SiteDoc): string | null {
  let first: string | null = null;
  for (const p of doc.previews ?? []) if (first === null || p.expiresAt < first) first = p.expiresAt;
  return first;
}

/** Lower-cased `q`, or undefined when it filters nothing. */
export function normalizedSearch(q: string | undefined): string | undefined {
  const s = q?.trim().toLowerCase();
  return s ? s : undefined;
}

import { ValidationError } from '../errors.ts';
import type { Actor } from '../events.ts';
import type { ChangeCounts } from '../manifest-diff.ts';
import { hostLabels, isLabel, MAX_LABEL_LENGTH, RESERVED_SEPARATOR, type SiteAddress } from '../paths.ts';
import type { PreviewMeta, RevisionInfo } from './events.ts';

export type { PreviewEvent, PreviewGone, PreviewMeta } from './events.ts';

/**
 * Previews and permalinks (spec §14): a preview is a named, expiring copy of a site beside
 * its live content, served at `<name>--<slug>.<group>.<base>`; a permalink serves revision
 * number N at `v<N>--<slug>.<group>.<base>`. The leftmost label of such a host is split at
 * its first `--`.
 */


/** A preview as a site's state holds it. */
export type PreviewInfo = {
  readonly name: string;
  readonly revision: RevisionInfo;
  readonly meta: PreviewMeta;
  readonly createdAt: string;
  /** Who first published it (absent only in states folded from events without an actor, as decider specs write them). */
  readonly createdBy?: Actor;
  readonly updatedAt: string;
  readonly updatedBy?: Actor;
  /** `SITES_PREVIEW_TTL` after its last publish; the expiry job removes it then. */
  readonly expiresAt: string;
  /** Its files against the live revision when it was last published (spec §14). */
  readonly changes?: ChangeCounts;
};

/** At most this many pages are listed with a preview (spec §14). */
export const MAX_PREVIEW_PAGES = 20;

/** The permalink form of a leftmost label's first part: `v` and digits (spec §14). */
const PERMALINK = /^v\d+$/;
/** A permalink as it is written: no leading zero, so each revision has one address. */
const CANONICAL_PERMALINK = /^v[1-9]\d*$/;

/**
 * A preview name (spec §14): a label without `--`, not of the permalink form `v<digits>`,
 * and short enough that `<name>--<slug>` is still one label (63 characters); 400 otherwise.
 */
export function assertPreviewName(name: string, slug: string): void {
  const shown = JSON.stringify(name);
  if (!isLabel(name)) throw new ValidationError(`preview name ${shown} is not a valid label (lowercase letters, digits and inner hyphens)`);
  if (name.includes(RESERVED_SEPARATOR)) throw new ValidationError(`preview name ${shown} contains "--", which separates it from the site in its host`);
  if (PERMALINK.test(name)) throw new ValidationError(`preview name ${shown} has the form v<number>, which names a revision's permalink`);
  const label = `${name}${RESERVED_SEPARATOR}${slug}`;
  if (label.length > MAX_LABEL_LENGTH) {
    throw new ValidationError(`preview name ${shown} is too long for the site ${JSON.stringify(slug)}: "${label}" would be longer than ${MAX_LABEL_LENGTH} characters`);
  }
}

/** What the first part of a host's leftmost label names: a preview, a permalink, or nothing valid. */
export type Variant = { readonly kind: 'preview'; readonly name: string } | { readonly kind: 'permalink'; readonly number: number };

/** Reads `pr-42` or `v7` (the part before the first `--`); undefined when it can name neither. */
export function parseVariant(part: string): Variant | undefined {
  if (!isLabel(part) || part.includes(RESERVED_SEPARATOR)) return undefined;
  if (PERMALINK.test(part)) return CANONICAL_PERMALINK.test(part) ? { kind: 'permalink', number: Number(part.slice(1)) } : undefined;
  return { kind: 'preview', name: part };
}

/** The leftmost host label of a variant of the site with this slug: `pr-42--app`, `v7--app`. */
export function variantLabel(variant: Variant, slug: string): string {
  return `${variant.kind === 'preview' ? variant.name : `v${variant.number}`}${RESERVED_SEPARATOR}${slug}`;
}

/** The host labels below the apex of a site, or of one of its variants: `app.docs`, `pr-42--app.docs`, `v7--app.docs`. */
export function siteHostLabels(address: SiteAddress, variant?: Variant): string {
  const labels = hostLabels(address);
  return variant ? `${variantLabel(variant, address.slug)}${labels.slice(address.slug.length)}` : labels;
}

/** The preview of this name, if the state has one. */
export function findPreview(previews: readonly PreviewInfo[] | undefined, name: string): PreviewInfo | undefined {
  return previews?.find((p) => p.name === name);
}

/** Is the preview still to be served at `nowMs` (its expiry not reached yet)? */
export function previewCurrent(preview: PreviewInfo, nowMs: number): boolean {
  return Date.parse(preview.expiresAt) > nowMs;
}

/** Are two preview descriptions the same (field order aside)? */
export function samePreviewMeta(a: PreviewMeta, b: PreviewMeta): boolean {
  return a.title === b.title && a.description === b.description && a.repo === b.repo;
}

/** A preview description given with a publish over the one it had: omitted fields keep their value, empty ones clear it. */
export function mergePreviewMeta(existing: PreviewMeta | undefined, input: PreviewMeta): PreviewMeta {
  const out: { -readonly [K in keyof PreviewMeta]: PreviewMeta[K] } = {};
  for (const field of ['title', 'description', 'repo'] as const) {
    const value = input[field] !== undefined ? input[field] : existing?.[field];
    if (value !== undefined && value.trim() !== '') out[field] = value;
  }
  return out;
}

const isHtml = (path: string) => /\.html?$/i.test(path);

/**
 * The pages a preview's comment links to (spec §14): at most 20 added or changed HTML files
 * against live, the added ones first, each group by path.
 */
export function changedPages(diff: { readonly added: readonly { path: string }[]; readonly changed: readonly { path: string }[] }): string[] {
  const byPath = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const added = diff.added.map((f) => f.path).filter(isHtml).sort(byPath);
  const changed = diff.changed.map((f) => f.path).filter(isHtml).sort(byPath);
  return [...added, ...changed].slice(0, MAX_PREVIEW_PAGES);
}

/** The URL path a page is served at: `index.html` → `/`, `docs/index.html` → `/docs/`, else `/path`. */
export function pageUrlPath(path: string): string {
  const dir = path === 'index.html' ? '' : path.endsWith('/index.html') ? path.slice(0, -'index.html'.length) : undefined;
  const encode = (p: string) => p.split('/').map(encodeURIComponent).join('/');
  return dir === undefined ? `/${encode(path)}` : `/${encode(dir)}`;
}

/** What a site document or state holds that a preview or permalink host is served from. */
type VariantSource = {
  readonly live: RevisionInfo;
  readonly archived: readonly RevisionInfo[];
  readonly previews?: readonly PreviewInfo[];
};

/**
 * The revision a preview or permalink host serves (spec §14), of a site already known to be
 * live, and until when (ms; Infinity for a permalink, whose revision goes only by an event):
 * a preview not expired at `nowMs`; the retained revision (live or archived) of that number.
 */
export function variantRevision(site: VariantSource, variant: Variant, nowMs: number): { readonly revision: RevisionInfo; readonly until: number } | undefined {
  if (variant.kind === 'permalink') {
    const revision = site.live.number === variant.number ? site.live : site.archived.find((r) => r.number === variant.number);
    return revision ? { revision, until: Infinity } : undefined;
  }
  const preview = findPreview(site.previews, variant.name);
  return preview && previewCurrent(preview, nowMs) ? { revision: preview.revision, until: Date.parse(preview.expiresAt) } : undefined;
}

import { ValidationError } from './errors.ts';

/** A site's address: its group path (0–2 labels, `/`-joined, `""` for a flat site) and slug. */
export type SiteAddress = { readonly group: string; readonly slug: string };

const LABEL = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;
export const MAX_LABEL_LENGTH = 63;
export const MAX_DEPTH = 3;

/**
 * Words that are actions or the trash in API paths, so they cannot be a slug
 * (`/api/sites/docs/revisions` must mean "revisions of docs").
 */
export const RESERVED_SLUGS: ReadonlySet<string> = new Set([
  'revisions',
  'rollback',
  'restore',
  'purge',
  'favicon',
  'events',
  'deleted',
]);

export function isLabel(value: string): boolean {
  return value.length <= MAX_LABEL_LENGTH && LABEL.test(value);
}

const LABEL_RULE = 'lowercase letters, digits and inner hyphens, at most 63 characters';

export function assertLabel(value: string, what: string, hint = ''): void {
  if (!isLabel(value)) throw new ValidationError(`${what} ${JSON.stringify(value)} is not a valid label (${LABEL_RULE})${hint}`);
}

/**
 * The double hyphen in a host's leftmost label joins a preview or revision to its site
 * (spec §1, §14: `pr-42--app.docs.<base>`, `v7--app.docs.<base>`), so no site label holds one.
 */
export const RESERVED_SEPARATOR = '--';

/** A label of a site path: a label (§1) without the reserved `--`. */
export function isSiteLabel(value: string): boolean {
  return isLabel(value) && !value.includes(RESERVED_SEPARATOR);
}

function assertSiteLabel(value: string, what: string, hint = ''): void {
  assertLabel(value, what, hint);
  if (value.includes(RESERVED_SEPARATOR)) {
    throw new ValidationError(`${what} ${JSON.stringify(value)} contains "--", which is reserved for preview and revision hosts (pr-42--app.docs.<base>)`);
  }
}

/**
 * Why a group label is wrong when it looks like a host name or a path written the wrong way:
 * people write the group as it reads in the host (`previews.docs`), but a group is written
 * outside-in with `/` (`docs/previews`, served at `….previews.docs.<base>`).
 */
function groupHint(group: string): string {
  if (!group.includes('.')) return '';
  const labels = group.split('.');
  if (group.includes('/') || labels.length > MAX_DEPTH - 1 || !labels.every(isLabel)) return ': labels are separated by "/", not "."';
  return `: labels are separated by "/", not "."; a site served at <slug>.${group}.<base> has the group "${[...labels].reverse().join('/')}"`;
}

/** Why a slug is wrong when it holds a whole address (`app.docs`, `docs/app`): the group goes in its own field. */
function slugHint(slug: string): string {
  const host = slug.includes('.') && !slug.includes('/');
  const labels = host ? slug.split('.') : slug.split('/');
  if (labels.length < 2 || labels.length > MAX_DEPTH || !labels.every(isLabel)) return '';
  const [own, group] = host ? [labels[0]!, labels.slice(1).reverse().join('/')] : [labels[labels.length - 1]!, labels.slice(0, -1).join('/')];
  const where = host ? `the site served at ${slug}.<base>` : `the site ${slug}`;
  return `: a slug is one label, and the group is its own field: ${where} is "group": "${group}", "slug": "${own}" (full path ${group}/${own})`;
}

/** Parses and validates a group path such as `""`, `docs` or `grp/sub`. */
export function parseGroup(group: string): string[] {
  if (group === '') return [];
  const labels = group.split('/');
  if (labels.length > MAX_DEPTH - 1) {
    throw new ValidationError(`group ${JSON.stringify(group)} has more than ${MAX_DEPTH - 1} labels`);
  }
  for (const label of labels) assertSiteLabel(label, 'group label', groupHint(group));
  return labels;
}

/** Builds a validated address from separate group and slug values (publish `meta`). */
export function siteAddress(group: string, slug: string): SiteAddress {
  parseGroup(group);
  assertSiteLabel(slug, 'slug', slugHint(slug));
  if (RESERVED_SLUGS.has(slug)) {
    throw new ValidationError(`slug ${JSON.stringify(slug)} is reserved`);
  }
  return { group, slug };
}

/** Parses a full site path (`docs/app`, `demo`, `grp/sub/a`) as used in API URLs. */
export function parseSitePath(path: string): SiteAddress {
  const labels = path.split('/').filter((l, i, all) => !(l === '' && i === all.length - 1));
  if (labels.length === 0 || labels.length > MAX_DEPTH) {
    throw new ValidationError(`site path ${JSON.stringify(path)} must have 1 to ${MAX_DEPTH} labels`);
  }
  const slug = labels[labels.length - 1]!;
  return siteAddress(labels.slice(0, -1).join('/'), slug);
}

/** `docs/app` for group `docs` and slug `app`; the slug alone for a flat site. */
export function fullPath(address: SiteAddress): string {
  return address.group === '' ? address.slug : `${address.group}/${address.slug}`;
}

/** The host labels below the apex, leftmost first: `app.docs` for `docs/app`. */
export function hostLabels(address: SiteAddress): string {
  return fullPath(address).split('/').reverse().join('.');
}

/**
 * Resolves the labels left of the apex (already lower-cased, without the apex)
 * to a site address, or undefined when they cannot name a site.
 */
export function addressFromHostLabels(sub: string): SiteAddress | undefined {
  if (sub === '') return undefined;
  const labels = sub.split('.');
  if (labels.length > MAX_DEPTH || !labels.every(isLabel)) return undefined;
  const [slug, ...groupReversed] = labels;
  return { group: groupReversed.reverse().join('/'), slug: slug! };
}

/** True when `path` equals `prefix` or lies beneath it (`docs` covers `docs/app`). */
export function isWithin(path: string, prefix: string): boolean {
  return prefix === '' || path === prefix || path.startsWith(`${prefix}/`);
}

import { ValidationError } from './errors.ts';
import { assertLabel, fullPath, isWithin, MAX_DEPTH, parseSitePath, type SiteAddress } from './paths.ts';

/**
 * `preview` (spec §14) publishes and removes previews only: a key holding it alone can never
 * change what is live (what a CI job building untrusted pull requests gets). `publish`
 * implies it (`can`).
 */
export const CAPABILITIES = ['publish', 'unpublish', 'rollback', 'patch', 'purge', 'preview'] as const;
export type Capability = (typeof CAPABILITIES)[number];

/**
 * A grant binds capabilities to one target. `group` targets own their subtree and
 * the flat site of the same name; `site` targets exactly one site; the empty group
 * target covers every site.
 */
export type Grant = {
  readonly kind: 'group' | 'site';
  readonly target: string;
  readonly permissions: readonly Capability[];
};

/** Who is asking: an admin, a holder of grants (key or MCP connection), or a viewer. */
export type Principal =
  | { readonly kind: 'admin' }
  | { readonly kind: 'grants'; readonly grants: readonly Grant[] }
  | { readonly kind: 'viewer' };

export function isCapability(value: unknown): value is Capability {
  return typeof value === 'string' && (CAPABILITIES as readonly string[]).includes(value);
}

/** Validates and normalises a grant as received from the API, the CLI or the consent form. */
export function validateGrant(raw: unknown): Grant {
  if (typeof raw !== 'object' || raw === null) throw new ValidationError('grant must be an object');
  const { kind, target, permissions } = raw as Record<string, unknown>;
  if (kind !== 'group' && kind !== 'site') throw new ValidationError('grant kind must be "group" or "site"');
  if (typeof target !== 'string') throw new ValidationError('grant target must be a string');
  if (kind === 'site' && target === '') throw new ValidationError('a site grant needs a target "group/slug"');
  assertCanonicalTarget(target);
  if (kind === 'site') parseSitePath(target);
  if (!Array.isArray(permissions) || permissions.length === 0) {
    throw new ValidationError('grant permissions must be a non-empty list');
  }
  for (const p of permissions) {
    if (!isCapability(p)) throw new ValidationError(`unknown capability ${JSON.stringify(p)}`);
  }
  const unique = CAPABILITIES.filter((c) => permissions.includes(c));
  return { kind, target, permissions: unique };
}

/**
 * A target is stored exactly as it will be compared with site paths, so anything that is
 * not already canonical (`docs/app/`, `docs//app`, `Docs`, four labels) is refused: it
 * would be a grant that silently matches nothing. A group target may have up to 3
 * labels: it can name a site path (`docs/app` owns `docs/app`'s children).
 */
export function assertCanonicalTarget(target: string): void {
  if (target === '') return;
  const labels = target.split('/');
  if (labels.length > MAX_DEPTH) throw new ValidationError(`grant target ${JSON.stringify(target)} is deeper than ${MAX_DEPTH} labels`);
  for (const label of labels) {
    if (label === '') throw new ValidationError(`grant target ${JSON.stringify(target)} has an empty label (a leading, trailing or doubled slash)`);
    assertLabel(label, `grant target ${JSON.stringify(target)}: label`, label.includes('.') ? '; labels are separated by "/", not "." (the group "docs/previews" is served at ….previews.docs.<base>)' : '');
  }
}

/** Does this grant cover the site? (pure; the seed's target rule) */
export function grantCovers(grant: Grant, site: SiteAddress): boolean {
  if (grant.kind === 'site') return grant.target === fullPath(site);
  // group target T: the site whose full path is T, and every site whose group is T or beneath it.
  if (grant.target === '') return true;
  return fullPath(site) === grant.target || isWithin(site.group, grant.target);
}

export function can(principal: Principal, capability: Capability, site: SiteAddress): boolean {
  switch (principal.kind) {
    case 'admin':
      return true;
    case 'viewer':
      return false;
    case 'grants':
      return principal.grants.some((g) => holds(g, capability) && grantCovers(g, site));
    default: {
      const never: never = principal;
      return never;
    }
  }
}

/** Does the grant hold the capability, itself or through one that implies it (`publish` implies `preview`)? */
function holds(grant: Grant, capability: Capability): boolean {
  return grant.permissions.includes(capability) || (capability === 'preview' && grant.permissions.includes('publish'));
}

export function describeGrant(grant: Grant): string {
  const target = grant.kind === 'site' ? `site ${grant.target}` : grant.target === '' ? 'all sites' : `group ${grant.target}`;
  return `${grant.permissions.join(',')} on ${target}`;
}

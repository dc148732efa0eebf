import type { Identity } from '../../domain/auth.ts';
import { ValidationError } from '../../domain/errors.ts';
import { can, type Capability } from '../../domain/grants.ts';
import { parseSitePath, type SiteAddress } from '../../domain/paths.ts';
import { readable } from '../../domain/site/lifecycle.ts';
import type { AppDeps } from '../deps.ts';

/**
 * `…/sites/docs/previews/pr-42` reads two ways: the preview `pr-42` of the flat site `docs`
 * (spec §14), or the site `pr-42` of the group `docs/previews` (spec §1 uses that very group
 * as its example, and sites made that way before previews existed must stay reachable).
 * Likewise `GET /api/sites/docs/app/previews` is the previews of `docs/app` or the site
 * `docs/app/previews`. Which one is meant is settled here, without telling anyone whether a
 * site they may not act on exists:
 * - when the caller may act only under one reading, that one (the other would be refused);
 * - when under both, the site reading if such a site exists (live or in the trash), else the preview reading.
 * `capability` is what the site reading needs of a key (`undefined`: a read, open to anyone signed in).
 */
export async function meansSite(deps: Pick<AppDeps, 'queries'>, identity: Identity, site: { readonly path: string; readonly capability?: Capability }, previewOf: string): Promise<boolean> {
  const sitePath = address(site.path);
  if (!sitePath) return false;
  const mayActOnSite = site.capability === undefined ? true : identity.principal.kind !== 'viewer' && can(identity.principal, site.capability, sitePath);
  if (!mayActOnSite) return false;
  const previewSite = address(previewOf);
  const mayPreview = previewSite !== undefined && (site.capability === undefined || (identity.principal.kind !== 'viewer' && can(identity.principal, 'preview', previewSite)));
  if (!mayPreview) return true;
  const found = await deps.queries.getSite(site.path);
  if (!found) return false;
  // A read of a hidden site by a non-admin, or of a site in the trash, is the preview reading: the site would answer 404.
  if (site.capability === undefined) return readable(found.status) && !(found.meta.hidden && identity.principal.kind === 'viewer');
  return true;
}

function address(path: string): SiteAddress | undefined {
  try {
    return parseSitePath(path);
  } catch (err) {
    if (err instanceof ValidationError) return undefined;
    throw err;
  }
}

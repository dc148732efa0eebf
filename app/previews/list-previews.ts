import type { Identity } from '../../domain/auth.ts';
import { NotFoundError } from '../../domain/errors.ts';
import { fullPath, parseSitePath } from '../../domain/paths.ts';
import { readable } from '../../domain/site/lifecycle.ts';
import { authorizeSite } from '../authorize.ts';
import type { PreviewsResponse } from '../contract/preview.ts';
import type { SiteRef } from '../contract/site-ref.ts';
import type { AppDeps } from '../deps.ts';
import { previewJson } from './result.ts';

/**
 * A live site's previews, by name (spec §14): `GET /ingest/sites/{path}/previews` (a key or
 * connection needs `preview` on the site, checked before the lookup) and
 * `GET /api/sites/{path}/previews` (anyone signed in; a hidden site only for admins, 404
 * for the rest, exactly like an absent one). A site in the trash has its previews offline: 404.
 */
export async function listPreviews(deps: AppDeps, identity: Identity, input: SiteRef): Promise<PreviewsResponse> {
  const address = identity.principal.kind === 'grants' ? authorizeSite(identity, 'preview', input.site) : parseSitePath(input.site);
  const site = await deps.queries.getSite(fullPath(address));
  const hiddenFromThem = site?.meta.hidden && identity.principal.kind === 'viewer';
  if (!site || !readable(site.status) || hiddenFromThem) throw new NotFoundError(`no site ${fullPath(address)}`);
  return { previews: (site.previews ?? []).map((p) => previewJson(deps, site, p)) };
}

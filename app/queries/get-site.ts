import type { Identity } from '../../domain/auth.ts';
import { readableSite } from '../authorize.ts';
import type { SiteRef } from '../contract/site-ref.ts';
import type { Site } from '../contract/site.ts';
import type { AppDeps } from '../deps.ts';

/** `GET /api/sites/{path}` (spec §5): a live site; hidden ones to admins only (404 otherwise). */
export async function getSite(deps: AppDeps, identity: Identity, input: SiteRef): Promise<Site> {
  return deps.shapes.site(await readableSite(deps, identity, input.site), identity);
}

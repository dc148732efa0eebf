import type { Identity } from '../../domain/auth.ts';
import { parseMetaFields } from '../../domain/site/meta.ts';
import { authorizeSite } from '../authorize.ts';
import { readLater, type Later } from '../contract/later.ts';
import type { SitePatch } from '../contract/patch.ts';
import type { Site } from '../contract/site.ts';
import type { AppDeps } from '../deps.ts';
import { runSiteCommand } from './run.ts';

/** `patch` is read once `patch` on the site is checked (an HTTP body: 403 before 400). */
export type PatchSiteInput = { readonly site: string; readonly patch: Later<SitePatch> };

/**
 * Edit a live site's metadata (spec §4, §5): a field set replaces it, `null` clears an
 * optional one. Needs `patch`; a site that is not live answers 404.
 */
export async function patchSite(deps: AppDeps, identity: Identity, input: PatchSiteInput): Promise<Site> {
  const address = authorizeSite(identity, 'patch', input.site);
  const patch = parseMetaFields(await readLater(input.patch), true);
  const { site } = await runSiteCommand(deps, identity.actor, address, { type: 'PatchSite', address, patch });
  return deps.shapes.site(site!, identity);
}

import type { Identity } from '../../domain/auth.ts';
import { authorizeSite } from '../authorize.ts';
import type { SiteRef } from '../contract/site-ref.ts';
import type { AppDeps } from '../deps.ts';
import { runSiteCommand } from './run.ts';

/**
 * Unpublish (spec §4): the site goes offline at once and waits in the trash. Needs
 * `unpublish`; a site that is not live answers 404.
 */
export async function unpublishSite(deps: AppDeps, identity: Identity, input: SiteRef): Promise<void> {
  const address = authorizeSite(identity, 'unpublish', input.site);
  await runSiteCommand(deps, identity.actor, address, { type: 'UnpublishSite', address });
}

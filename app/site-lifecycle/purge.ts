import type { Identity } from '../../domain/auth.ts';
import { fullPath } from '../../domain/paths.ts';
import { authorizeSite } from '../authorize.ts';
import type { SiteRef } from '../contract/site-ref.ts';
import type { AppDeps } from '../deps.ts';
import { releaseDetached } from '../domains/claims.ts';
import { collectDropped } from '../jobs/gc.ts';
import { runSiteCommand } from './run.ts';

/**
 * Purge (spec §4): a site in the trash is destroyed for good, and every file no other
 * retained revision references is deleted. Its custom domains are detached with it (spec
 * §15) and their claims released. Needs `purge`; a live site answers 404. The
 * quarantine job purges as the system identity, through this same entry.
 */
export async function purgeSite(deps: AppDeps, identity: Identity, input: SiteRef): Promise<void> {
  const address = authorizeSite(identity, 'purge', input.site);
  const { events } = await runSiteCommand(deps, identity.actor, address, { type: 'PurgeSite', address });
  for (const event of events) {
    if (event.type !== 'SitePurged') continue;
    await collectDropped(deps, event.data.revisions.map((r) => ({ manifest: r.manifest, ...(r.favicon ? { favicon: r.favicon } : {}) })));
  }
  await releaseDetached(deps, identity.actor, fullPath(address), events);
}

import type { Identity } from '../../domain/auth.ts';
import { authorizeSite } from '../authorize.ts';
import type { SiteRef } from '../contract/site-ref.ts';
import type { Site } from '../contract/site.ts';
import type { AppDeps } from '../deps.ts';
import { collectDropped } from '../jobs/gc.ts';
import { runSiteCommand } from './run.ts';

/**
 * Restore (spec §4): a site in the trash comes back exactly as it was, with its previews but
 * those whose time came meanwhile (spec §14: they expire instead, and their files are
 * collected). Needs `publish`: bringing content back online is publishing it. A live site
 * answers 404.
 */
export async function restoreSite(deps: AppDeps, identity: Identity, input: SiteRef): Promise<Site> {
  const address = authorizeSite(identity, 'publish', input.site);
  const { site, events } = await runSiteCommand(deps, identity.actor, address, { type: 'RestoreSite', address, now: deps.now().toISOString() });
  const expired = events.flatMap((e) => (e.type === 'PreviewExpired' ? [{ manifest: e.data.manifest, ...(e.data.favicon ? { favicon: e.data.favicon } : {}) }] : []));
  await collectDropped(deps, expired);
  return deps.shapes.site(site!, identity);
}

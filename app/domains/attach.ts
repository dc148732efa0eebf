import type { Identity } from '../../domain/auth.ts';
import { parseCustomDomain } from '../../domain/custom-domain/name.ts';
import { fullPath, parseSitePath } from '../../domain/paths.ts';
import type { SiteCommand } from '../../domain/site/decide.ts';
import { attachOutcome } from '../../domain/site/domains.ts';
import { siteCommands } from '../aggregates.ts';
import { requireAdmin } from '../authorize.ts';
import type { DomainInput } from '../contract/domains.ts';
import type { Site } from '../contract/site.ts';
import type { AppDeps } from '../deps.ts';
import { claimDomain } from './claims.ts';

/**
 * `PUT /api/sites/{path}/domains/{domain}` (spec §15, admins): the live site also answers at
 * `domain`. Two appends: the domain's claim first (its stream's expected revision is what
 * keeps a domain on one site, whichever instance asks), then `DomainAttached` on the site's
 * stream, with the revision the claim names expected. A crash between the two leaves a claim
 * that this same request completes when sent again, and that another site can take over once
 * it is seen to be stalled (app/domains/claims.ts).
 *
 * Attaching a domain the site already has changes nothing and answers the site as it is (a
 * PUT: the state asked for is the state there). 409 when the domain is another site's, or
 * the site has 10 already; 404 when the site is not live.
 */
export async function attachDomain(deps: AppDeps, identity: Identity, input: DomainInput): Promise<Site> {
  requireAdmin(identity);
  const address = parseSitePath(input.site);
  const domain = parseCustomDomain(input.domain, deps.settings.serviceNames, deps.settings.separatePortalHost);
  const site = fullPath(address);
  await siteCommands(deps).handle(address, identity.actor, async (state, revision): Promise<SiteCommand> => {
    // The claim is made while preparing, on the state and revision this command is decided on and appended at.
    if (attachOutcome(state, address, domain) === 'attach') await claimDomain(deps, identity.actor, domain, { site, siteId: state.siteId!, siteRevision: revision });
    return { type: 'AttachDomain', address, domain };
  });
  return deps.shapes.site((await deps.queries.getSite(site))!, identity);
}

import type { Identity } from '../../domain/auth.ts';
import { parseCustomDomain } from '../../domain/custom-domain/name.ts';
import { fullPath, parseSitePath } from '../../domain/paths.ts';
import { siteCommands } from '../aggregates.ts';
import { requireAdmin } from '../authorize.ts';
import type { DomainInput } from '../contract/domains.ts';
import type { AppDeps } from '../deps.ts';
import { releaseDetached } from './claims.ts';

/**
 * `DELETE /api/sites/{path}/domains/{domain}` (spec §15, admins): the site stops answering at
 * `domain`, at once, and the domain is free for any site. `DomainDetached` on the site's
 * stream first, then the claim released. Works on a site in the trash too (it frees the name
 * without bringing the site back). 404 when the domain is not attached to that site.
 *
 * The name is checked as a host name only, not against the service's own names: a domain
 * attached before an operator added an alias covering it can still be detached.
 */
export async function detachDomain(deps: AppDeps, identity: Identity, input: DomainInput): Promise<void> {
  requireAdmin(identity);
  const address = parseSitePath(input.site);
  const domain = parseCustomDomain(input.domain, []);
  const { events } = await siteCommands(deps).handle(address, identity.actor, { type: 'DetachDomain', address, domain });
  await releaseDetached(deps, identity.actor, fullPath(address), events);
}

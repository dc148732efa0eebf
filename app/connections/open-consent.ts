import type { Identity } from '../../domain/auth.ts';
import { requireApprover } from '../authorize.ts';
import type { AppDeps } from '../deps.ts';

/**
 * The consent page (spec §13) as a use case: may this signed-in person approve MCP
 * connections at all? The authorization endpoint asks before it shows the form, and before
 * it fetches a client's metadata document for them (a visitor who may not approve must not
 * make the service fetch anything); ForbiddenError says why not. The consent itself
 * (grantConnection) asks again.
 */
export function openConsent(deps: Pick<AppDeps, 'settings'>, identity: Identity): void {
  requireApprover(deps.settings, identity);
}

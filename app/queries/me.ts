import type { Identity } from '../../domain/auth.ts';
import type { Me } from '../contract/me.ts';
import type { AppDeps } from '../deps.ts';

/** `GET /api/me` (spec §5): who is asking, and what this instance offers. Anyone signed in. */
export async function me(deps: Pick<AppDeps, 'settings' | 'versioning'>, identity: Identity): Promise<Me> {
  return {
    user: identity.name,
    is_admin: identity.principal.kind === 'admin',
    base_domain: deps.settings.baseDomain,
    versioning_enabled: deps.versioning.enabled,
    mcp_enabled: deps.settings.mcpEnabled,
  };
}

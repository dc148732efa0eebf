import type { Identity } from '../../domain/auth.ts';
import { isConnectionId } from '../../domain/connection/credentials.ts';
import { NotFoundError } from '../../domain/errors.ts';
import { connectionCommands } from '../aggregates.ts';
import { requireAdmin } from '../authorize.ts';
import type { AppDeps } from '../deps.ts';

/**
 * Revoke an MCP connection (spec §13, admins; `sites mcp revoke`): its tokens are refused by
 * the very next request once this returns. The reason names who revoked it.
 */
export async function revokeConnection(deps: AppDeps, identity: Identity, input: { readonly id: string }): Promise<void> {
  requireAdmin(identity);
  if (!isConnectionId(input.id)) throw new NotFoundError(`no active connection ${JSON.stringify(input.id)}`);
  await connectionCommands(deps).handle(input.id, identity.actor, { type: 'RevokeConnection', id: input.id, reason: `revoked by ${identity.name}` });
}

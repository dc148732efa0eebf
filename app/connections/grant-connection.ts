import type { Identity } from '../../domain/auth.ts';
import type { GrantInput } from '../../domain/connection/decide.ts';
import { isMetadataDocumentClientId } from '../../domain/oauth-client/client-id.ts';
import type { ConnectionDoc } from '../../projections/documents.ts';
import { projectConnection } from '../../projections/project.ts';
import { connectionCommands, oauthClientCommands } from '../aggregates.ts';
import { requireApprover } from '../authorize.ts';
import type { AppDeps } from '../deps.ts';

export type GrantConnectionInput = Omit<GrantInput, 'now' | 'user'>;

/**
 * The consent (spec §13): a signed-in person allowed to approve connections
 * (SITES_MCP_ALLOWED_USERS) grants the client a connection with the chosen grants. Marks the
 * client used (first consent only; refused when the client is unknown or its unused
 * registration expired), then creates the connection with its one-time authorization code
 * (only its hash is stored). The client's stream is written first, so a granted connection
 * always implies `ClientUsed`, and its expected revision settles a race with the expiry job
 * either way: expired first → this consent is refused; used first → the job leaves it alone.
 */
export async function grantConnection(deps: AppDeps, identity: Identity, input: GrantConnectionInput): Promise<ConnectionDoc> {
  requireApprover(deps.settings, identity);
  const now = deps.now();
  // A metadata-document client has no registration to mark used (or to expire): the
  // authorization endpoint has just fetched and checked its document.
  if (!isMetadataDocumentClientId(input.clientId)) {
    await oauthClientCommands(deps).handle(input.clientId, identity.actor, { type: 'UseClient', clientId: input.clientId, connectionId: input.id, now });
  }
  const { events } = await connectionCommands(deps).handle(input.id, identity.actor, { type: 'GrantConnection', ...input, user: identity.name, now });
  // The connection as the read model shows it, from the events just appended (the stream was new).
  return events.reduce<ConnectionDoc | null>(projectConnection, null)!;
}

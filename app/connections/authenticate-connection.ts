import type { Identity } from '../../domain/auth.ts';
import { checkAccessToken } from '../../domain/connection/access.ts';
import { credentialConnection } from '../../domain/connection/credentials.ts';
import type { ConnectionDoc } from '../../projections/documents.ts';
import type { AppDeps } from '../deps.ts';

/** The identity a connection acts as: exactly its grants, named in events as the connection. */
export function connectionIdentity(connection: ConnectionDoc): Identity {
  return {
    principal: { kind: 'grants', grants: connection.grants },
    actor: { kind: 'connection', id: connection.id, name: connection.clientName, user: connection.user },
    via: 'connection',
    name: `connection ${connection.clientName} (${connection.user})`,
  };
}

/**
 * Who an MCP access token is (RFC 6750): the connection's current token, unexpired, not
 * revoked, bound to `resource`. Read from the read model on every request, so a revoked
 * connection fails at once. Authentication, not authorization: the tools' use cases decide.
 */
export async function authenticateConnection(
  deps: Pick<AppDeps, 'queries' | 'now'>,
  input: { readonly token: string; readonly resource: string },
): Promise<{ ok: true; identity: Identity; connection: ConnectionDoc } | { ok: false; reason: string }> {
  const id = credentialConnection('access', input.token);
  const doc = id ? await deps.queries.getConnection(id) : undefined;
  const checked = checkAccessToken(doc, input.token, input.resource, deps.now());
  if (!checked.ok) return checked;
  return { ok: true, identity: connectionIdentity(checked.connection), connection: checked.connection };
}

import type { AuthInfo } from '@modelcontextprotocol/server';
import type { Identity } from '../../../domain/auth.ts';
import { UnauthenticatedError } from '../../../domain/errors.ts';
import type { ConnectionDoc } from '../../../projections/documents.ts';

/** What the bearer gate attaches to `authInfo.extra` for the tools: the connection, and the request's address (for the log). */
export type ConnectionAuth = { readonly connection: ConnectionDoc; readonly client?: string };

/** The identity a connection acts as: exactly its grants, named in events as the connection. */
export function connectionIdentity(connection: ConnectionDoc): Identity {
  return {
    principal: { kind: 'grants', grants: connection.grants },
    actor: { kind: 'connection', id: connection.id, name: connection.clientName, user: connection.user },
    via: 'connection',
    name: `connection ${connection.clientName} (${connection.user})`,
  };
}

/** The identity of the request a tool serves; the gate in front of /mcp guarantees one. */
export function identityOf(authInfo: AuthInfo | undefined): Identity {
  const connection = (authInfo?.extra as ConnectionAuth | undefined)?.connection;
  if (!connection) throw new UnauthenticatedError('this tool needs an MCP access token');
  return connectionIdentity(connection);
}

/** The address the request came from, as the bearer gate saw it. */
export function clientOf(authInfo: AuthInfo | undefined): string {
  return (authInfo?.extra as ConnectionAuth | undefined)?.client ?? 'unknown';
}

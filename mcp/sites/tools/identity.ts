import type { AuthInfo } from '@modelcontextprotocol/server';
import type { Identity } from '../../../domain/auth.ts';
import { UnauthenticatedError } from '../../../domain/errors.ts';

/** What the bearer gate attaches to `authInfo.extra` for the tools: who the access token is, and the request's address (for the log). */
export type ConnectionAuth = { readonly identity: Identity; readonly client?: string };

/** The address the request came from, as the bearer gate saw it. */
export function clientOf(authInfo: AuthInfo | undefined): string {
  return (authInfo?.extra as ConnectionAuth | undefined)?.client ?? 'unknown';
}

/** The identity of the request a tool serves; the gate in front of /mcp guarantees one. */
export function identityOf(authInfo: AuthInfo | undefined): Identity {
  const identity = (authInfo?.extra as ConnectionAuth | undefined)?.identity;
  if (!identity) throw new UnauthenticatedError('this tool needs an MCP access token');
  return identity;
}

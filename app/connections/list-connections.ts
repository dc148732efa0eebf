import type { Identity } from '../../domain/auth.ts';
import type { ConnectionDoc } from '../../projections/documents.ts';
import { requireAdmin } from '../authorize.ts';
import type { Connection } from '../contract/connection.ts';
import { connectionJson } from '../contract/site-json.ts';
import type { AppDeps } from '../deps.ts';

/** Where a connection stands: usable, consented but its code never redeemed, past its refresh token, or revoked. */
export type ConnectionStatus = 'active' | 'pending' | 'lapsed' | 'revoked';

function statusOf(c: ConnectionDoc, now: Date): ConnectionStatus {
  if (c.revoked) return 'revoked';
  if (c.code?.redeemed === false) return 'pending';
  return c.refreshExpiresAt !== undefined && Date.parse(c.refreshExpiresAt) > now.getTime() ? 'active' : 'lapsed';
}

/**
 * `GET /api/mcp/connections` (spec §13, admins): the active connections; `revoked` adds the
 * revoked ones (with revoked_at). Lapsed and unredeemed consents stay out.
 */
export async function listConnections(deps: AppDeps, identity: Identity, input: { readonly revoked?: boolean } = {}): Promise<{ connections: Connection[] }> {
  const shown = await connectionsOverview(deps, identity, { all: true });
  return { connections: shown.filter((c) => c.status === 'active' || (input.revoked === true && c.status === 'revoked')).map((c) => c.connection) };
}

/** `sites mcp connections [--all]` (the operator): each connection with where it stands; `all` includes every one. */
export async function connectionsOverview(deps: AppDeps, identity: Identity, input: { readonly all?: boolean }): Promise<{ connection: Connection; status: ConnectionStatus }[]> {
  requireAdmin(identity);
  const now = deps.now();
  const all = (await deps.queries.listConnections()).map((c) => ({ connection: connectionJson(c), status: statusOf(c, now) }));
  return input.all ? all : all.filter((c) => c.status === 'active');
}

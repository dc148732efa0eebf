import type Router from '@koa/router';
import type { ApiContext } from '../../api/context.ts';
import { requireAdmin } from '../../api/auth.ts';
import { revokeConnection } from '../../app/connections/connections.ts';
import type { ConnectionDoc } from '../../projections/documents.ts';
import { ConnectionsQuery, type Connection } from '../../api/schemas/connection.ts';
import { parseQuery } from '../../api/schemas/parse.ts';

/**
 * A connection is active while it can still be used: not revoked, its code exchanged and
 * its refresh token not lapsed. A consent whose code was never redeemed is not listed.
 */
export function isActive(c: ConnectionDoc, now: Date): boolean {
  return !c.revoked && c.code?.redeemed !== false && c.refreshExpiresAt !== undefined && Date.parse(c.refreshExpiresAt) > now.getTime();
}

/** The API `Connection` object (spec §13): never any token or hash. */
export function connectionJson(c: ConnectionDoc): Connection {
  return {
    id: c.id,
    client_id: c.clientId,
    client_name: c.clientName,
    user: c.user,
    grants: c.grants.map((g) => ({ kind: g.kind, target: g.target, permissions: [...g.permissions] })),
    created_at: c.createdAt,
    ...(c.lastUsedAt ? { last_used_at: c.lastUsedAt } : {}),
    // Before its code is exchanged a connection has no refresh token: the code's expiry bounds it.
    expires_at: c.refreshExpiresAt ?? c.code?.expiresAt ?? c.createdAt,
    ...(c.revoked && c.revokedAt ? { revoked_at: c.revokedAt } : {}),
    ...(c.revoked && c.revokedReason ? { revoked_reason: c.revokedReason } : {}),
  };
}

/** `GET /api/mcp/connections`, `DELETE /api/mcp/connections/{id}` (admin). */
export function mountConnectionsApi(router: Router, api: ApiContext): void {
  router.get('/api/mcp/connections', async (ctx) => {
    await requireAdmin(api, ctx);
    const { revoked } = parseQuery(ConnectionsQuery, ctx.query);
    const now = api.deps.now();
    const all = await api.deps.queries.listConnections();
    // `?revoked=true` adds the revoked ones (with revoked_at); lapsed and unredeemed consents stay out.
    const shown = all.filter((c) => isActive(c, now) || (revoked === true && c.revoked));
    ctx.body = { connections: shown.map(connectionJson) };
  });
  router.delete('/api/mcp/connections/:id', async (ctx) => {
    const identity = await requireAdmin(api, ctx);
    await revokeConnection(api.deps, identity.actor, ctx.params.id ?? '', `revoked by ${identity.name}`);
    ctx.status = 204;
  });
}

import type Router from '@koa/router';
import type { ApiContext } from '../../api/context.ts';
import { requireAdmin } from '../../api/auth.ts';
import { revokeConnection } from '../../domain/commands/connections.ts';
import type { ConnectionDoc } from '../../projections/documents.ts';

/** The API `Connection` object: never any token or hash. */
export function connectionJson(c: ConnectionDoc) {
  return {
    id: c.id,
    client_id: c.clientId,
    client_name: c.clientName,
    user: c.user,
    grants: c.grants.map((g) => ({ kind: g.kind, target: g.target, permissions: [...g.permissions] })),
    created_at: c.createdAt,
    ...(c.lastRefreshedAt ? { last_refreshed_at: c.lastRefreshedAt } : {}),
    active: !c.revoked && c.code?.redeemed !== false,
    revoked: c.revoked,
    ...(c.revokedAt ? { revoked_at: c.revokedAt } : {}),
    ...(c.revokedReason ? { revoked_reason: c.revokedReason } : {}),
  };
}

/** `GET /api/mcp/connections`, `DELETE /api/mcp/connections/{id}` (admin). */
export function mountConnectionsApi(router: Router, api: ApiContext): void {
  router.get('/api/mcp/connections', async (ctx) => {
    await requireAdmin(api, ctx);
    ctx.body = { connections: (await api.deps.readModel.listConnections()).map(connectionJson) };
  });
  router.delete('/api/mcp/connections/:id', async (ctx) => {
    const identity = await requireAdmin(api, ctx);
    await revokeConnection(api.deps, identity.actor, ctx.params.id ?? '', `revoked by ${identity.name}`);
    ctx.status = 204;
  });
}

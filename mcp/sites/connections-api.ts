import type Router from '@koa/router';
import type { ApiContext } from '../../api/context.ts';
import { requireUser } from '../../api/auth.ts';
import { listConnections } from '../../app/connections/list-connections.ts';
import { revokeConnection } from '../../app/connections/revoke-connection.ts';
import { ConnectionsQuery } from '../../app/contract/connection.ts';
import { parseQuery } from '../../app/contract/parse.ts';

/** `GET /api/mcp/connections`, `DELETE /api/mcp/connections/{id}` (spec §13; the use cases admit admins). */
export function mountConnectionsApi(router: Router, api: ApiContext): void {
  router.get('/api/mcp/connections', async (ctx) => {
    const identity = await requireUser(api, ctx);
    ctx.body = await listConnections(api.deps, identity, parseQuery(ConnectionsQuery, ctx.query));
  });
  router.delete('/api/mcp/connections/:id', async (ctx) => {
    await revokeConnection(api.deps, await requireUser(api, ctx), { id: ctx.params.id ?? '' });
    ctx.status = 204;
  });
}

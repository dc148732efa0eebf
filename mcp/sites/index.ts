import type Router from '@koa/router';
import type { ApiContext } from '../../api/context.ts';
import { authenticate } from './bearer.ts';
import { mountConnectionsApi } from './connections-api.ts';
import { mountAuthorize } from './oauth/authorize.ts';
import { registeredClients } from './oauth/authorize-request.ts';
import { anyClient, createMetadataClients } from './oauth/client-metadata.ts';
import { createFormSigner } from './oauth/csrf.ts';
import { mountMetadata } from './oauth/metadata.ts';
import { mountRegistration } from './oauth/register.ts';
import { mountToken } from './oauth/token.ts';
import { createTransport, serveMcp } from './transport.ts';

/**
 * Mounts the MCP connector on the apex router: `/mcp` (Streamable HTTP, OAuth-protected),
 * the OAuth 2.1 authorization server (`/.well-known/…`, `/mcp/oauth/{register,authorize,token}`)
 * and the admin connections API. The service is both the authorization server and the
 * resource server; tokens are opaque and only their hashes are stored, as events.
 */
export function mountMcp(router: Router, api: ApiContext): void {
  const handler = createTransport(api);
  mountMetadata(router, api);
  mountRegistration(router, api);
  const metadataClients = createMetadataClients(api.outbound.oauthMetadata, () => api.deps.now().getTime());
  mountAuthorize(router, api, createFormSigner(), anyClient(metadataClients, registeredClients(api)));
  mountToken(router, api);
  mountConnectionsApi(router, api);
  router.all('/mcp', async (ctx) => {
    const authInfo = await authenticate(api, ctx);
    if (authInfo) await serveMcp(api, handler, ctx, authInfo);
  });
}

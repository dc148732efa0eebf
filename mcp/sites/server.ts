import { McpServer } from '@modelcontextprotocol/server';
import type { Identity } from '../../domain/auth.ts';
import type { ApiContext } from '../../api/context.ts';
import { logToolCalls } from './audit.ts';
import { registerLifecycleTools } from './tools/lifecycle.ts';
import { registerListTool } from './tools/list.ts';
import { registerPublishTools } from './tools/publish.ts';

export const SERVER_INFO = { name: 'sites', version: '0.1.0' };

/**
 * One server per request, bound to the identity of the access token that request
 * carried: the tools can only ever act as that connection, within its grants. `client`
 * is the request's address, for the write log.
 */
export function createSitesServer(api: ApiContext, identity: Identity, client: string): McpServer {
  const server = new McpServer(SERVER_INFO, {
    capabilities: { tools: {} },
    instructions:
      `Publishes static sites to ${api.apexOrigin()} on behalf of ${identity.name}. ` +
      'Sites live at <slug>.<group>.<base>; a tool refused with "forbidden" names the capability and site the connection lacks.',
  });
  logToolCalls(server, api, identity, client);
  registerPublishTools(server, api, identity);
  registerLifecycleTools(server, api, identity);
  registerListTool(server, api, identity);
  return server;
}

/**
 * Runs the MCP conformance suite's server scenarios against the real service's /mcp.
 * The suite's client does not do OAuth, so this starts the service, connects through the
 * consent flow (as the tests do), and puts a loopback proxy in front of /mcp that adds the
 * connection's bearer token and forwards everything else (Host and Origin included) as is.
 *
 *   node --import tsx test/mcp/conformance-proxy.ts            # prints the proxy URL, runs until killed
 */
import { createServer, request } from 'node:http';
import { startAuthorization } from '@modelcontextprotocol/client';
import { startService } from '../support/service.ts';
import { approve, tokenRequest } from './oauth-helpers.ts';

const REDIRECT = 'http://127.0.0.1:9/callback';
const svc = await startService({ env: { SITES_MCP_GROUP: 'conformance' } });
const reg = await fetch(`${svc.url}/mcp/oauth/register`, {
  method: 'POST',
  headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify({ client_name: 'conformance', redirect_uris: [REDIRECT] }),
});
const client = (await reg.json()) as { client_id: string };
const metadata = await (await fetch(`${svc.url}/.well-known/oauth-authorization-server`)).json();
const { authorizationUrl, codeVerifier } = await startAuthorization(svc.url, { metadata, clientInformation: client, redirectUrl: REDIRECT, resource: `${svc.url}/mcp` });
const code = (await approve(svc.url, authorizationUrl, { kind: 'group', group: 'conformance', caps: ['publish'] })).searchParams.get('code')!;
const { body } = await tokenRequest(svc.url, { grant_type: 'authorization_code', code, code_verifier: codeVerifier, redirect_uri: REDIRECT, client_id: client.client_id });
const token = body.access_token as string;

const proxy = createServer((req, res) => {
  const headers = { ...req.headers, authorization: `Bearer ${token}` };
  const upstream = request({ host: '127.0.0.1', port: svc.port, method: req.method, path: req.url, headers }, (up) => {
    res.writeHead(up.statusCode ?? 502, up.headers);
    up.pipe(res);
  });
  upstream.on('error', () => res.destroy());
  req.pipe(upstream);
});
await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
const port = (proxy.address() as { port: number }).port;
console.log(`http://localhost:${port}/mcp`);
const stop = async () => {
  // Long-lived SSE streams would keep both servers open: cut them first.
  proxy.closeAllConnections();
  proxy.close();
  await svc.stop();
  process.exit(0);
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);

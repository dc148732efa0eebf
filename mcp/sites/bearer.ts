import type { Context } from 'koa';
import type { AuthInfo } from '@modelcontextprotocol/server';
import type { ApiContext } from '../../api/context.ts';
import { checkAccessToken } from '../../domain/connection/access.ts';
import { credentialConnection } from '../../domain/connection/credentials.ts';
import { peerAddress } from '../../api/peer-address.ts';
import { urls } from './http.ts';
import type { ConnectionAuth } from './tools/identity.ts';

const quote = (s: string) => `"${s.replace(/["\\]/g, '')}"`;

/**
 * The resource-server side of /mcp (RFC 6750, RFC 9728 §5.1): every request needs the
 * connection's current access token; the connection is read from the read model on every
 * request, so a revoked one fails at once. Refusals are 401 with a `WWW-Authenticate`
 * challenge that points at the protected-resource metadata.
 */
export async function authenticate(api: ApiContext, ctx: Context): Promise<AuthInfo | undefined> {
  const u = urls(api);
  const refuse = (error?: string, description?: string) => {
    const params = [
      ...(error ? [`error=${quote(error)}`] : []),
      ...(description ? [`error_description=${quote(description)}`] : []),
      `resource_metadata=${quote(u.resourceMetadata)}`,
    ];
    ctx.status = 401;
    ctx.set('WWW-Authenticate', `Bearer ${params.join(', ')}`);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { error: error ?? 'unauthorized', error_description: description ?? 'an access token is required; see the resource metadata' };
    return undefined;
  };
  const header = ctx.get('authorization');
  if (!header) return refuse();
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!m) return refuse('invalid_request', 'use Authorization: Bearer <access token>');
  const token = m[1]!;
  const id = credentialConnection('access', token);
  const doc = id ? await api.deps.readModel.getConnection(id) : undefined;
  const now = api.deps.now();
  const checked = checkAccessToken(doc, token, u.resource, now);
  if (!checked.ok) return refuse('invalid_token', checked.reason);
  api.connectionUsed(checked.connection.id);
  const extra: ConnectionAuth = { connection: checked.connection, client: peerAddress(api, ctx) };
  return {
    token,
    clientId: checked.connection.clientId,
    scopes: [],
    expiresAt: Math.floor(Date.parse(checked.connection.accessExpiresAt!) / 1000),
    resource: new URL(u.resource),
    resourceMetadataUrl: u.resourceMetadata,
    extra: extra as unknown as Record<string, unknown>,
  };
}

import { randomBytes } from 'node:crypto';
import type Router from '@koa/router';
import type { ApiContext } from '../../../api/context.ts';
import { registerOAuthClient } from '../../../domain/commands/connections.ts';
import { BodyTooLarge, mediaType, oauthError, readBody } from '../http.ts';

const MAX_BODY = 16 * 1024;
const MAX_REDIRECTS = 10;
/** Schemes a browser must never be sent to with a code. */
const FORBIDDEN_SCHEMES = new Set(['javascript:', 'data:', 'file:', 'vbscript:', 'blob:', 'about:']);
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

type Refusal = { error: 'invalid_redirect_uri' | 'invalid_client_metadata'; description: string };

/**
 * OAuth 2.1 §8.4.2 / RFC 8252: https anywhere, http only on a loopback host, or a
 * private-use scheme of a native app; never a fragment.
 */
export function checkRedirectUri(raw: unknown): Refusal | undefined {
  const bad = (description: string): Refusal => ({ error: 'invalid_redirect_uri', description });
  if (typeof raw !== 'string' || raw.length > 2000) return bad('each redirect URI must be a string of at most 2000 characters');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return bad(`${JSON.stringify(raw)} is not an absolute URI`);
  }
  if (url.hash || raw.includes('#')) return bad(`${JSON.stringify(raw)} has a fragment`);
  if (FORBIDDEN_SCHEMES.has(url.protocol)) return bad(`${JSON.stringify(raw)} uses a forbidden scheme`);
  if (url.protocol === 'http:' && !LOOPBACK.has(url.hostname)) return bad(`${JSON.stringify(raw)}: http is allowed only for loopback hosts; use https`);
  return undefined;
}

/** Validates an RFC 7591 registration request; returns what is stored or the refusal. */
export function validateRegistration(body: unknown): { name: string; redirectUris: string[]; clientUri?: string; grantTypes: string[] } | Refusal {
  const meta = (description: string): Refusal => ({ error: 'invalid_client_metadata', description });
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return meta('the body must be a JSON object');
  const b = body as Record<string, unknown>;
  if (!Array.isArray(b.redirect_uris) || b.redirect_uris.length === 0) return { error: 'invalid_redirect_uri', description: 'redirect_uris must be a non-empty list' };
  if (b.redirect_uris.length > MAX_REDIRECTS) return { error: 'invalid_redirect_uri', description: `at most ${MAX_REDIRECTS} redirect URIs` };
  for (const uri of b.redirect_uris) {
    const refusal = checkRedirectUri(uri);
    if (refusal) return refusal;
  }
  const grantTypes = b.grant_types ?? ['authorization_code', 'refresh_token'];
  if (!Array.isArray(grantTypes) || grantTypes.some((g) => g !== 'authorization_code' && g !== 'refresh_token')) {
    return meta('grant_types may only contain authorization_code and refresh_token');
  }
  const responseTypes = b.response_types ?? ['code'];
  if (!Array.isArray(responseTypes) || responseTypes.some((r) => r !== 'code')) return meta('response_types may only contain code');
  const name = b.client_name ?? 'unnamed MCP client';
  if (typeof name !== 'string' || name.trim() === '' || name.length > 200) return meta('client_name must be a non-empty string of at most 200 characters');
  let clientUri: string | undefined;
  if (b.client_uri !== undefined) {
    if (typeof b.client_uri !== 'string' || !/^https?:\/\//.test(b.client_uri) || b.client_uri.length > 2000) return meta('client_uri must be an http(s) URL');
    clientUri = b.client_uri;
  }
  return { name: name.trim(), redirectUris: b.redirect_uris as string[], ...(clientUri ? { clientUri } : {}), grantTypes: grantTypes as string[] };
}

/**
 * RFC 7591 dynamic client registration. Clients are public (PKCE, no secret), so any
 * requested `token_endpoint_auth_method` is answered with `none`, as §3.2.1 allows.
 */
export function mountRegistration(router: Router, api: ApiContext): void {
  router.post('/mcp/oauth/register', async (ctx) => {
    let body: unknown;
    try {
      if (mediaType(ctx) !== 'application/json') return oauthError(ctx, 400, 'invalid_client_metadata', 'send the client metadata as application/json');
      body = JSON.parse((await readBody(ctx, MAX_BODY)).toString('utf8'));
    } catch (err) {
      if (err instanceof BodyTooLarge) return oauthError(ctx, 413, 'invalid_client_metadata', err.message);
      return oauthError(ctx, 400, 'invalid_client_metadata', 'the body is not valid JSON');
    }
    const valid = validateRegistration(body);
    if ('error' in valid) return oauthError(ctx, 400, valid.error, valid.description);
    const clientId = `mcpclient_${randomBytes(16).toString('hex')}`;
    const doc = await registerOAuthClient(api.deps, { clientId, name: valid.name, redirectUris: valid.redirectUris, ...(valid.clientUri ? { clientUri: valid.clientUri } : {}) });
    ctx.status = 201;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = {
      client_id: doc.clientId,
      client_id_issued_at: Math.floor(Date.parse(doc.registeredAt) / 1000),
      client_name: doc.name,
      redirect_uris: doc.redirectUris,
      ...(doc.clientUri ? { client_uri: doc.clientUri } : {}),
      grant_types: valid.grantTypes,
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  });
}

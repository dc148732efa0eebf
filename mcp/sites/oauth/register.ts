import { randomBytes } from 'node:crypto';
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { ApiContext } from '../../../api/context.ts';
import { registerOAuthClient } from '../../../app/connections/oauth-clients.ts';
import { peerAddress } from '../../../api/peer-address.ts';
import { BodyTooLarge, mediaType, oauthError, readBody } from '../http.ts';
import { createRateLimiter, limiterKey, type RateLimiter } from './rate-limit.ts';
import { checkRedirectUri } from './redirect-uris.ts';

/** Client metadata larger than this is refused with 400 (spec §2: registration is unauthenticated). */
export const MAX_METADATA_BYTES = 4 * 1024;
/** At most this many registrations per peer address per hour (spec §2), then 429. */
export const REGISTRATIONS_PER_HOUR = 30;
/** Peers the limiter tracks at most at once. */
const MAX_TRACKED_PEERS = 10_000;
const MAX_REDIRECTS = 10;

type Refusal = { error: 'invalid_redirect_uri' | 'invalid_client_metadata'; description: string };

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
    if (typeof b.client_uri !== 'string' || !/^https?:\/\/[^\s]+$/i.test(b.client_uri) || b.client_uri.length > 2000 || !URL.canParse(b.client_uri)) {
      return meta('client_uri must be an http(s) URL');
    }
    clientUri = b.client_uri;
  }
  return { name: name.trim(), redirectUris: [...new Set(b.redirect_uris as string[])], ...(clientUri ? { clientUri } : {}), grantTypes: grantTypes as string[] };
}

/**
 * RFC 7591 dynamic client registration. Clients are public (PKCE, no secret), so any
 * requested `token_endpoint_auth_method` is answered with `none`, as §3.2.1 allows.
 * Anyone may register, so the work is bounded: metadata over 4 KiB → 400, more than 30
 * registrations per peer address per hour → 429 with Retry-After, and a registration never
 * used for a consent expires after 24 hours (domain/oauth-client/).
 */
export function mountRegistration(router: Router, api: ApiContext, limiter: RateLimiter = registrationLimiter(api)): void {
  router.post('/mcp/oauth/register', async (ctx) => {
    const admission = limiter.admit(limiterKey(peerAddress(api, ctx)));
    if (!admission.ok) {
      ctx.set('Retry-After', String(admission.retryAfterSeconds));
      return oauthError(ctx, 429, 'too_many_requests', `at most ${REGISTRATIONS_PER_HOUR} client registrations per address per hour; retry in ${admission.retryAfterSeconds} s`);
    }
    let registered = false;
    try {
      registered = await register(api, ctx);
    } finally {
      // Only a registration that happened counts against the peer.
      if (!registered) admission.release();
    }
  });
}

export function registrationLimiter(api: Pick<ApiContext, 'deps'>): RateLimiter {
  return createRateLimiter({ max: REGISTRATIONS_PER_HOUR, windowMs: 3_600_000, maxPeers: MAX_TRACKED_PEERS, now: () => api.deps.now().getTime() });
}

/** Handles one registration request; true when a client was registered. */
async function register(api: ApiContext, ctx: Context): Promise<boolean> {
  const refuse = (error: Refusal['error'], description: string): false => {
    oauthError(ctx, 400, error, description);
    return false;
  };
  const tooLarge = `the client metadata is larger than ${MAX_METADATA_BYTES} bytes`;
  if (mediaType(ctx) !== 'application/json') return refuse('invalid_client_metadata', 'send the client metadata as application/json');
  if (Number(ctx.get('content-length') || 0) > MAX_METADATA_BYTES) return refuse('invalid_client_metadata', tooLarge);
  let body: unknown;
  try {
    body = JSON.parse((await readBody(ctx, MAX_METADATA_BYTES)).toString('utf8'));
  } catch (err) {
    return refuse('invalid_client_metadata', err instanceof BodyTooLarge ? tooLarge : 'the body is not valid JSON');
  }
  const valid = validateRegistration(body);
  if ('error' in valid) return refuse(valid.error, valid.description);
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
  return true;
}

import type Router from '@koa/router';
import type { Context } from 'koa';
import type { ApiContext } from '../../../api/context.ts';
import { checkClientIdUrl } from './client-metadata.ts';
import { redeemCode, refreshConnection, type TokenOutcome, type TokenTtl } from '../../../app/connections/connections.ts';
import { isMetadataDocumentClientId } from '../../../domain/oauth-client/client-id.ts';
import { BodyTooLarge, mediaType, oauthError, readBody, sameResource, urls } from '../http.ts';

/** The client id of a public client: in the body, or as the user of HTTP Basic (RFC 6749 §2.3.1). */
function clientIdOf(ctx: Context, form: URLSearchParams): string | undefined {
  const basic = /^Basic\s+(\S+)$/i.exec(ctx.get('authorization'));
  if (basic) {
    const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    const user = colon === -1 ? decoded : decoded.slice(0, colon);
    try {
      return decodeURIComponent(user);
    } catch {
      return undefined;
    }
  }
  return form.get('client_id') ?? undefined;
}

/**
 * The token endpoint (OAuth 2.1 §3.2): `authorization_code` with PKCE and
 * `refresh_token` with rotation. Errors are RFC 6749 §5.2 JSON; nothing is cached.
 */
export function mountToken(router: Router, api: ApiContext): void {
  const ttl = (): TokenTtl => ({ accessMs: api.config.mcp.tokenTtlMs, refreshMs: api.config.mcp.refreshTtlMs });

  router.post('/mcp/oauth/token', async (ctx) => {
    let form: URLSearchParams;
    try {
      if (mediaType(ctx) !== 'application/x-www-form-urlencoded') {
        return oauthError(ctx, 400, 'invalid_request', 'send the token request as application/x-www-form-urlencoded');
      }
      form = new URLSearchParams((await readBody(ctx, 64 * 1024)).toString('utf8'));
    } catch (err) {
      if (err instanceof BodyTooLarge) return oauthError(ctx, 413, 'invalid_request', err.message);
      throw err;
    }
    for (const [name] of form) {
      if (form.getAll(name).length > 1) return oauthError(ctx, 400, 'invalid_request', `parameter ${name} is repeated`);
    }
    const clientId = clientIdOf(ctx, form);
    if (!clientId) return oauthError(ctx, 401, 'invalid_client', 'client_id is required');
    // A metadata-document client is not looked up (nor its document fetched: this endpoint is
    // unauthenticated): its code and refresh token are bound to its client_id, which is checked.
    const known = isMetadataDocumentClientId(clientId) ? checkClientIdUrl(clientId) === undefined : (await api.deps.readModel.getOAuthClient(clientId)) !== undefined;
    if (!known) {
      ctx.set('WWW-Authenticate', 'Basic realm="mcp"');
      return oauthError(ctx, 401, 'invalid_client', 'unknown client_id: register the client first');
    }
    const resource = form.get('resource') ?? undefined;
    const ours = urls(api).resource;
    if (resource !== undefined && !sameResource(resource, ours)) {
      return oauthError(ctx, 400, 'invalid_target', `this server only issues tokens for the resource ${ours}`);
    }
    const missing = (names: string[]) => names.find((n) => !form.get(n));
    let outcome: TokenOutcome;
    switch (form.get('grant_type')) {
      case 'authorization_code': {
        const absent = missing(['code', 'redirect_uri', 'code_verifier']);
        if (absent) return oauthError(ctx, 400, 'invalid_request', `${absent} is required`);
        outcome = await redeemCode(api.deps, ttl(), {
          code: form.get('code')!,
          verifier: form.get('code_verifier')!,
          clientId,
          redirectUri: form.get('redirect_uri')!,
          ...(resource !== undefined ? { resource: ours } : {}),
        });
        break;
      }
      case 'refresh_token': {
        if (missing(['refresh_token'])) return oauthError(ctx, 400, 'invalid_request', 'refresh_token is required');
        outcome = await refreshConnection(api.deps, ttl(), {
          refreshToken: form.get('refresh_token')!,
          clientId,
          ...(resource !== undefined ? { resource: ours } : {}),
        });
        break;
      }
      case null:
        return oauthError(ctx, 400, 'invalid_request', 'grant_type is required');
      default:
        return oauthError(ctx, 400, 'unsupported_grant_type', 'supported: authorization_code, refresh_token');
    }
    if (!outcome.ok) return oauthError(ctx, 400, outcome.refusal.error, outcome.refusal.description);
    const t = outcome.tokens;
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Pragma', 'no-cache');
    ctx.body = {
      access_token: t.accessToken,
      token_type: 'Bearer',
      expires_in: Math.max(1, Math.round((Date.parse(t.accessExpiresAt) - api.deps.now().getTime()) / 1000)),
      refresh_token: t.refreshToken,
    };
  });
}

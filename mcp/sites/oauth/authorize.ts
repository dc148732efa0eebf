import type Router from '@koa/router';
import type { Context } from 'koa';
import type { ApiContext } from '../../../api/context.ts';
import { forwardAuthUser } from '../../../api/auth.ts';
import { grantConnection } from '../../../domain/commands/connections.ts';
import { newConnectionId, newCredential } from '../../../domain/connections.ts';
import { DomainError } from '../../../domain/errors.ts';
import { validateGrant, type Grant } from '../../../domain/grants.ts';
import { BodyTooLarge, mediaType, readBody, urls } from '../http.ts';
import { checkAuthorizeRequest, paramList, readParams, redirectTo, type AuthorizeParams } from './authorize-request.ts';
import { consentPage, messagePage, type ConsentChoice } from './consent-page.ts';
import type { FormSigner } from './csrf.ts';

function html(ctx: Context, status: number, body: string): void {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  // The consent screen must never be framed (clickjacking) nor cached.
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'");
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.body = body;
}

/** Who may approve: a forward-auth user (trusted proxy only) listed in SITES_MCP_ALLOWED_USERS. */
function approver(api: ApiContext, ctx: Context): { user: string } | { status: number; message: string } {
  const user = forwardAuthUser(api, ctx);
  if (!user) return { status: 401, message: 'Sign in through the portal proxy first, then reload this page.' };
  if (!api.config.mcp.allowedUsers.has(user)) {
    return { status: 403, message: `${user} may not approve MCP connections on this server. Ask an administrator (SITES_MCP_ALLOWED_USERS).` };
  }
  return { user };
}

function prefill(api: ApiContext): ConsentChoice {
  const group = api.config.mcp.group;
  return { kind: group === '' ? 'all' : 'group', group, site: '', caps: ['publish'] };
}

/** The approver's choice as a grant; ValidationError names what is wrong with it. */
function grantOf(choice: ConsentChoice): Grant {
  const kind = choice.kind === 'site' ? 'site' : 'group';
  const target = choice.kind === 'all' ? '' : choice.kind === 'site' ? choice.site.trim() : choice.group.trim();
  if (choice.kind === 'group' && target === '') throw new DomainError('invalid', 'Type a group name, or choose "All sites".');
  if (choice.caps.length === 0) throw new DomainError('invalid', 'Pick at least one capability.');
  return validateGrant({ kind, target, permissions: choice.caps });
}

/**
 * The authorization endpoint. GET shows the consent screen on the forward-auth plane;
 * POST (the form) approves, creating the connection and its one-time code, or denies.
 */
export function mountAuthorize(router: Router, api: ApiContext, signer: FormSigner): void {
  router.get('/mcp/oauth/authorize', async (ctx) => {
    const params = readParams((n) => (typeof ctx.query[n] === 'string' ? (ctx.query[n] as string) : undefined));
    const checked = await checkAuthorizeRequest(api, params);
    if (checked.kind === 'page') return html(ctx, checked.status, messagePage('Cannot connect', checked.message));
    if (checked.kind === 'redirect') return ctx.redirect(redirectTo(api, params, { error: checked.error, error_description: checked.description }));
    const who = approver(api, ctx);
    if ('status' in who) return html(ctx, who.status, messagePage('Not allowed', who.message));
    const csrf = signer.sign([who.user, ...paramList(params)]);
    html(ctx, 200, consentPage({ client: checked.client, params, user: who.user, csrf, base: api.config.baseDomain, choice: prefill(api) }));
  });

  router.post('/mcp/oauth/authorize', async (ctx) => {
    let form: URLSearchParams;
    try {
      if (mediaType(ctx) !== 'application/x-www-form-urlencoded') return html(ctx, 415, messagePage('Cannot connect', 'Submit the consent form.'));
      form = new URLSearchParams((await readBody(ctx, 64 * 1024)).toString('utf8'));
    } catch (err) {
      if (err instanceof BodyTooLarge) return html(ctx, 413, messagePage('Cannot connect', err.message));
      throw err;
    }
    const params: AuthorizeParams = readParams((n) => form.get(n) ?? undefined);
    const checked = await checkAuthorizeRequest(api, params);
    if (checked.kind === 'page') return html(ctx, checked.status, messagePage('Cannot connect', checked.message));
    const who = approver(api, ctx);
    if ('status' in who) return html(ctx, who.status, messagePage('Not allowed', who.message));
    // A cross-site form post carries a foreign Origin; the signed field is the real check.
    const origin = ctx.get('origin');
    if ((origin && origin !== urls(api).origin) || !signer.verify(form.get('csrf') ?? '', [who.user, ...paramList(params)])) {
      return html(ctx, 403, messagePage('Form expired', 'This consent form is stale or was not shown by this server. Start the connection again from the application.'));
    }
    ctx.status = 303;
    if (checked.kind === 'redirect') return ctx.redirect(redirectTo(api, params, { error: checked.error, error_description: checked.description }));
    if (form.get('decision') !== 'approve') {
      return ctx.redirect(redirectTo(api, params, { error: 'access_denied', error_description: `${who.user} denied the request` }));
    }
    const kind = form.get('target_kind');
    const choice: ConsentChoice = {
      kind: kind === 'all' || kind === 'site' ? kind : 'group',
      group: form.get('target_group') ?? '',
      site: form.get('target_site') ?? '',
      caps: form.getAll('caps'),
    };
    let grant: Grant;
    try {
      grant = grantOf(choice);
      ctx.status = 303;
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      const csrf = signer.sign([who.user, ...paramList(params)]);
      return html(ctx, 400, consentPage({ client: checked.client, params, user: who.user, csrf, base: api.config.baseDomain, choice, error: err.message }));
    }
    const id = newConnectionId();
    const code = newCredential('code', id);
    await grantConnection(api.deps, { kind: 'user', name: who.user }, {
      id,
      clientId: checked.client.clientId,
      clientName: checked.client.name,
      user: who.user,
      grants: [grant],
      resource: checked.resource,
      code,
      challenge: params.code_challenge,
      redirectUri: params.redirect_uri,
    });
    ctx.redirect(redirectTo(api, params, { code }));
  });
}

import type Router from '@koa/router';
import type { Context } from 'koa';
import type { ApiContext } from '../../../api/context.ts';
import { signedInUser } from '../../../api/auth.ts';
import { grantConnection } from '../../../app/connections/grant-connection.ts';
import { openConsent } from '../../../app/connections/open-consent.ts';
import { forwardAuthIdentity } from '../../../domain/auth.ts';
import { newConnectionId, newCredential } from '../../../domain/connection/credentials.ts';
import { DomainError, ForbiddenError } from '../../../domain/errors.ts';
import { isMetadataDocumentClientId } from '../../../domain/oauth-client/client-id.ts';
import { validateGrant, type Grant } from '../../../domain/grants.ts';
import { BodyTooLarge, isApexOrigin, mediaType, readBody } from '../http.ts';
import { checkAuthorizeRequest, PARAM_NAMES, paramList, readParams, redirectTo, registeredClients, type ClientLookup, type RedirectTarget } from './authorize-request.ts';
import { consentPage, messagePage, type ConsentChoice } from './consent-page.ts';
import type { FormSigner } from './csrf.ts';

/**
 * The consent screen and its error pages. Never framed (frame-ancestors, X-Frame-Options),
 * never cached, no script at all. No `form-action`: Chromium applies it to the redirects
 * after a form post too, so it would block the consent's 303 to the client's registered
 * redirect URI (which may be any https origin or an app's private-use scheme); the only
 * form on the page is ours, with a fixed action. `same-origin` referrers keep the apex
 * `Origin` on the form post (with `no-referrer` Chromium sends `Origin: null`).
 */
export const CONSENT_CSP = "default-src 'none'; script-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'";

function html(ctx: Context, status: number, body: string): void {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Content-Security-Policy', CONSENT_CSP);
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Referrer-Policy', 'same-origin');
  ctx.body = body;
}

/**
 * The one way an answer leaves for the client: a redirect to a URI the client registered
 * (302 from the GET, 303 after the form post so the browser follows with a GET).
 */
function sendBack(ctx: Context, api: ApiContext, target: RedirectTarget, values: Record<string, string>): void {
  ctx.status = ctx.method === 'POST' ? 303 : 302;
  ctx.set('Cache-Control', 'no-store');
  ctx.redirect(redirectTo(api, target, values));
}

/** Form fields that must appear at most once (`caps` is the only list). */
const SINGLE_FIELDS = ['csrf', 'decision', 'target_kind', 'target_group', 'target_site'] as const;

/**
 * Who is here, and may they approve: a forward-auth user (trusted proxy only), then the use
 * case's answer (openConsent: listed in SITES_MCP_ALLOWED_USERS), as a page's status and words.
 */
function approver(api: ApiContext, ctx: Context): { user: string } | { status: number; message: string } {
  const user = signedInUser(api, ctx);
  if (!user) return { status: 401, message: 'Sign in through the portal proxy first, then reload this page.' };
  try {
    openConsent(api.deps, forwardAuthIdentity(user, api.config.adminUsers));
  } catch (err) {
    if (err instanceof ForbiddenError) return { status: 403, message: err.message };
    throw err;
  }
  return { user };
}

/**
 * Why this GET is not a person opening the consent page, or undefined when it is. A host
 * sends the user's browser here as a top-level navigation (`Sec-Fetch-Dest: document`,
 * `Sec-Fetch-Mode: navigate`; `Sec-Fetch-Site: cross-site` from its web page, `none` from
 * an app or the address bar, `same-site` when the sign-in proxy on a sibling host sends
 * them back). A page of a published site is same-site with the apex and can make the
 * approver's browser send the cookie with an image, a script, a frame, a fetch or a
 * prerender too: none of those may make the service fetch a document. Browsers without
 * Fetch Metadata send none of these headers and are let through (the fetch limits hold).
 */
function notAVisit(ctx: Context): string | undefined {
  const dest = ctx.get('sec-fetch-dest');
  const site = ctx.get('sec-fetch-site');
  const mode = ctx.get('sec-fetch-mode');
  const purpose = `${ctx.get('sec-purpose')} ${ctx.get('purpose')}`;
  if (/prefetch|prerender/i.test(purpose)) return 'a prefetch';
  if (dest !== '' && dest !== 'document') return `as ${dest}`;
  if ((site === 'same-site' || site === 'cross-site') && mode !== 'navigate') return `${mode || 'no'} mode from ${site}`;
  return undefined;
}

/** The consent form as it opens: the configured group, and what the client's `scope` asks for (else publish). */
function prefill(api: ApiContext, scope: readonly string[]): ConsentChoice {
  const group = api.config.mcp.group;
  return { kind: group === '' ? 'all' : 'group', group, site: '', caps: scope.length > 0 ? scope : ['publish'] };
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
 * Every problem found before the signed-in user decides is an error page (spec §2: a
 * registered redirect URI proves nothing, anyone can register one); only the answer to
 * the user's own approve or deny goes to the registered URI (sendBack).
 */
export function mountAuthorize(router: Router, api: ApiContext, signer: FormSigner, clients: ClientLookup = registeredClients(api)): void {
  type Who = ReturnType<typeof approver>;
  const userOf = (who: Who) => ('user' in who ? who.user : undefined);
  const cannot = (ctx: Context, who: Who, status: number, message: string, code?: string) => html(ctx, status, messagePage('Cannot connect', message, code, userOf(who)));
  const notAllowed = (ctx: Context, who: { status: number; message: string }) => html(ctx, who.status, messagePage('Not allowed', who.message));

  router.get('/mcp/oauth/authorize', async (ctx) => {
    const who = approver(api, ctx);
    const read = readParams(new URLSearchParams(ctx.querystring));
    if (!read.ok) return cannot(ctx, who, 400, read.message);
    const params = read.params;
    // A metadata document is fetched for someone who may approve, never for anyone who asks:
    // otherwise any visitor could make the service send requests wherever they like.
    if ('status' in who && isMetadataDocumentClientId(params.client_id)) return notAllowed(ctx, who);
    // And only when they open the page themselves, not when another page loads it behind their back.
    const sneaked = isMetadataDocumentClientId(params.client_id) ? notAVisit(ctx) : undefined;
    if (sneaked) {
      return cannot(ctx, who, 403, `This page was loaded by another page (${sneaked}), not opened in the browser, so the application's metadata document was not fetched. Start the connection again from the application.`, 'invalid_request');
    }
    const checked = await checkAuthorizeRequest(api, params, clients, userOf(who));
    if (checked.kind === 'page') return cannot(ctx, who, checked.status, checked.message, checked.code);
    if ('status' in who) return notAllowed(ctx, who);
    const csrf = signer.sign([who.user, ...paramList(params)]);
    html(ctx, 200, consentPage({ client: checked.client, params, user: who.user, csrf, base: api.config.baseDomain, choice: prefill(api, checked.scope) }));
  });

  router.post('/mcp/oauth/authorize', async (ctx) => {
    const who = approver(api, ctx);
    // The form carries the request; a second copy in the query would be a second opinion.
    const query = new URLSearchParams(ctx.querystring);
    if (PARAM_NAMES.some((n) => query.has(n))) return cannot(ctx, who, 400, 'Send the authorization parameters in the consent form only, not in the address.');
    let form: URLSearchParams;
    try {
      if (mediaType(ctx) !== 'application/x-www-form-urlencoded') return cannot(ctx, who, 415, 'Submit the consent form.');
      form = new URLSearchParams((await readBody(ctx, 64 * 1024)).toString('utf8'));
    } catch (err) {
      if (err instanceof BodyTooLarge) return cannot(ctx, who, 413, err.message);
      throw err;
    }
    const read = readParams(form);
    if (!read.ok) return cannot(ctx, who, 400, read.message);
    const repeated = SINGLE_FIELDS.find((n) => form.getAll(n).length > 1);
    if (repeated) return cannot(ctx, who, 400, `The form names ${repeated} more than once.`);
    const params = read.params;
    // A cross-site post: another site's page (published sites are same-site with the apex).
    // Behind a proxy on another port or scheme the apex host still names itself in Origin.
    // The signed field is the real check: no other page can have it.
    const genuine = (user: string) => {
      const site = ctx.get('sec-fetch-site');
      const origin = ctx.get('origin');
      const foreign = (site !== '' && site !== 'same-origin' && site !== 'none') || (origin !== '' && !isApexOrigin(api, origin));
      return !foreign && signer.verify(form.get('csrf') ?? '', [user, ...paramList(params)]);
    };
    const expiredForm = () =>
      html(ctx, 403, messagePage('Form expired', 'This consent form is stale or was not shown by this server. Start the connection again from the application.', undefined, userOf(who)));
    // As on the GET: a document is fetched only for an approver, and here only for a form this server signed for them.
    if (isMetadataDocumentClientId(params.client_id)) {
      if ('status' in who) return notAllowed(ctx, who);
      if (!genuine(who.user)) return expiredForm();
    }
    const checked = await checkAuthorizeRequest(api, params, clients, userOf(who));
    if (checked.kind === 'page') return cannot(ctx, who, checked.status, checked.message, checked.code);
    if ('status' in who) return notAllowed(ctx, who);
    if (!genuine(who.user)) return expiredForm();
    if (form.get('decision') !== 'approve') {
      return sendBack(ctx, api, checked.target, { error: 'access_denied', error_description: `${who.user} denied the request` });
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
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      const csrf = signer.sign([who.user, ...paramList(params)]);
      return html(ctx, 400, consentPage({ client: checked.client, params, user: who.user, csrf, base: api.config.baseDomain, choice, error: err.message }));
    }
    const id = newConnectionId();
    const code = newCredential('code', id);
    try {
      await grantConnection(api.deps, forwardAuthIdentity(who.user, api.config.adminUsers), {
        id,
        clientId: checked.client.clientId,
        clientName: checked.client.name,
        grants: [grant],
        resource: checked.resource,
        code,
        challenge: params.code_challenge,
        redirectUri: checked.target.redirectUri,
      });
    } catch (err) {
      // The registration expired while the form was open: the client is unknown now.
      if (err instanceof DomainError && err.code === 'not_found') return cannot(ctx, who, 400, 'The client is not registered with this server. Ask the application to connect again.');
      throw err;
    }
    sendBack(ctx, api, checked.target, { code });
  });
}

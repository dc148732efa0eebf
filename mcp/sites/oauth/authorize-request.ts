import type { ApiContext } from '../../../api/context.ts';
import { isCodeChallenge } from '../../../domain/connection/credentials.ts';
import { CAPABILITIES, isCapability, type Capability } from '../../../domain/grants.ts';
import { unusedExpired } from '../../../domain/oauth-client/state.ts';
import type { OAuthClientDoc } from '../../../projections/documents.ts';
import { sameResource, urls } from '../http.ts';
import { isAllowedRedirectUri, matchRedirectUri } from './redirect-uris.ts';

/** The parameters of an authorization request (OAuth 2.1 §4.1.1, RFC 7636, RFC 8707). */
export type AuthorizeParams = {
  readonly client_id: string;
  readonly redirect_uri: string;
  readonly response_type: string;
  readonly code_challenge: string;
  readonly code_challenge_method: string;
  readonly state: string;
  readonly resource: string;
  readonly scope: string;
};

export const PARAM_NAMES = ['client_id', 'redirect_uri', 'response_type', 'code_challenge', 'code_challenge_method', 'state', 'resource', 'scope'] as const;

/**
 * Reads the request parameters from ONE source (the query of a GET, the form of a POST).
 * A parameter given more than once is refused (OAuth 2.1 §3.1: "MUST NOT be included more
 * than once"): which copy counts would otherwise depend on who reads it.
 */
export function readParams(source: URLSearchParams): { ok: true; params: AuthorizeParams } | { ok: false; message: string } {
  const out: Record<string, string> = {};
  for (const name of PARAM_NAMES) {
    const values = source.getAll(name);
    if (values.length > 1) return { ok: false, message: `The request names ${name} more than once, so it cannot be answered.` };
    out[name] = values[0] ?? '';
  }
  return { ok: true, params: out as AuthorizeParams };
}

/** The request parameters in a fixed order, as the consent form's signature covers them. */
export const paramList = (p: AuthorizeParams): string[] => PARAM_NAMES.map((n) => p[n]);

/** Where an answer may be sent: one of the client's registered redirect URIs, as registered. */
export type RedirectTarget = { readonly redirectUri: string; readonly state: string };

/**
 * A client the authorization endpoint can answer: a dynamically registered one (RFC 7591,
 * from the read model) or one described by its client ID metadata document.
 */
export type AuthClient = {
  readonly clientId: string;
  readonly name: string;
  readonly redirectUris: readonly string[];
  readonly clientUri?: string;
  /**
   * A metadata-document client: the host name of its `client_id` URL. It served the
   * document, so it is the one thing about the client the server has checked; the consent
   * page shows it prominently (the name is whatever the document says).
   */
  readonly metadataHost?: string;
};

/**
 * Finds the client a request names, or says (in plain words) why it cannot be used; a
 * `status` other than 400 when the server cannot look now (429: `requester`, the signed-in
 * user, asked too often; 503: too much in flight).
 */
export type ClientLookup = (clientId: string, requester?: string) => Promise<{ ok: true; client: AuthClient } | { ok: false; message: string; status?: 429 | 503 }>;

/** An error page: a title, a sentence for the person, and the OAuth error code for the developer. */
export type PageError = { kind: 'page'; status: number; message: string; code: string };

/**
 * Nothing found before the signed-in user's own approve or deny is ever redirected (spec §2):
 * anyone can register a client with any https redirect URI, so a redirect to a registered
 * URI with an error would make this endpoint an open redirector. Every problem is a page.
 */
export type Checked = PageError | { kind: 'ok'; client: AuthClient; target: RedirectTarget; resource: string; scope: readonly Capability[] };

/**
 * A registration never used for a consent ends at its `unusedExpiresAt` (24 hours). The
 * expiry job deletes its document; until it has run, the same rule applies here.
 */
const expired = (client: OAuthClientDoc, now: Date): boolean => unusedExpired(client.unusedExpiresAt, now);

/** The registered clients of the read model (RFC 7591), as the authorization endpoint sees them. */
export function registeredClients(api: Pick<ApiContext, 'deps'>): ClientLookup {
  return async (clientId) => {
    const found = await api.deps.readModel.getOAuthClient(clientId);
    if (!found || expired(found, api.deps.now())) {
      return { ok: false, message: 'The application is not registered with this server (or its registration expired). Ask it to connect again.' };
    }
    return { ok: true, client: { clientId: found.clientId, name: found.name, redirectUris: found.redirectUris, ...(found.clientUri ? { clientUri: found.clientUri } : {}) } };
  };
}

/** Scope tokens the server knows besides the capabilities: refresh tokens are always issued. */
const EXTRA_SCOPES = new Set(['offline_access']);
/** RFC 6749 §3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ), separated by single spaces. */
const SCOPE_SYNTAX = /^[\x21\x23-\x5b\x5d-\x7e]+(?: [\x21\x23-\x5b\x5d-\x7e]+)*$/;
export const SCOPES_SUPPORTED: readonly string[] = [...CAPABILITIES, ...EXTRA_SCOPES];

/** The capabilities a `scope` asks for (they prefill the consent form), or why it is refused. */
function readScope(scope: string): { ok: true; caps: Capability[] } | { ok: false; message: string } {
  if (scope === '') return { ok: true, caps: [] };
  if (scope.length > 1000 || !SCOPE_SYNTAX.test(scope)) return { ok: false, message: 'The requested scope is not a list of scope names separated by spaces.' };
  const tokens = scope.split(' ');
  const unknown = tokens.find((t) => !isCapability(t) && !EXTRA_SCOPES.has(t));
  if (unknown !== undefined) {
    return { ok: false, message: `The application asks for the scope ${JSON.stringify(unknown.slice(0, 60))}, which this server does not know (known: ${SCOPES_SUPPORTED.join(', ')}).` };
  }
  return { ok: true, caps: CAPABILITIES.filter((c) => tokens.includes(c)) };
}

export async function checkAuthorizeRequest(api: Pick<ApiContext, 'apexOrigin'>, p: AuthorizeParams, findClient: ClientLookup, requester?: string): Promise<Checked> {
  const page = (code: string, message: string): PageError => ({ kind: 'page', status: 400, code, message });
  if (!p.client_id) return page('invalid_request', 'The request names no application (client_id is missing).');
  const found = await findClient(p.client_id, requester);
  if (!found.ok) return found.status ? { kind: 'page', status: found.status, code: 'temporarily_unavailable', message: found.message } : page('invalid_client', found.message);
  const { client } = found;
  // The target is the registered string itself (a loopback one with the request's port).
  const registered = matchRedirectUri(client.redirectUris, p.redirect_uri);
  if (registered === undefined) {
    return page('invalid_request', 'The address the application wants the answer sent to (redirect_uri) is not one it registered, so this request cannot be answered.');
  }
  // Registered before the allow-list existed (view-source:, ws:, …): never redirected to.
  if (!isAllowedRedirectUri(registered)) {
    return page('invalid_request', 'The application registered an address (redirect_uri) this server does not send answers to. Ask it to register again.');
  }
  if (p.response_type !== 'code') return page('unsupported_response_type', 'The application asked for a kind of answer this server does not give: only response_type=code is supported.');
  if (!p.code_challenge) return page('invalid_request', 'The request has no PKCE code_challenge; this server requires one (S256).');
  if (p.code_challenge_method !== 'S256') return page('invalid_request', 'The request must use PKCE with code_challenge_method=S256 (plain is not accepted).');
  if (!isCodeChallenge(p.code_challenge)) return page('invalid_request', 'The PKCE code_challenge is not an S256 challenge.');
  const scope = readScope(p.scope);
  if (!scope.ok) return page('invalid_scope', scope.message);
  const { resource } = urls(api);
  if (p.resource && !sameResource(p.resource, resource)) return page('invalid_target', `The application asks for access to ${p.resource.slice(0, 200)}, but this server only grants access to ${resource}.`);
  return { kind: 'ok', client, target: { redirectUri: registered, state: p.state }, resource, scope: scope.caps };
}

/** The registered redirect URI with the response parameters (and RFC 9207 `iss`). */
export function redirectTo(api: Pick<ApiContext, 'apexOrigin'>, target: RedirectTarget, values: Record<string, string>): string {
  const url = new URL(target.redirectUri);
  for (const [k, v] of Object.entries(values)) url.searchParams.set(k, v);
  if (target.state) url.searchParams.set('state', target.state);
  url.searchParams.set('iss', urls(api).origin);
  return url.toString();
}

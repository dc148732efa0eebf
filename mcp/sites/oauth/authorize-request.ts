import type { ApiContext } from '../../../api/context.ts';
import { isCodeChallenge } from '../../../domain/connection/credentials.ts';
import { unusedExpired } from '../../../domain/oauth-client/state.ts';
import type { OAuthClientDoc } from '../../../projections/documents.ts';
import { sameResource, urls } from '../http.ts';
import { isAllowedRedirectUri } from './redirect-uris.ts';

/** The parameters of an authorization request (OAuth 2.1 §4.1.1, RFC 7636, RFC 8707). */
export type AuthorizeParams = {
  readonly client_id: string;
  readonly redirect_uri: string;
  readonly response_type: string;
  readonly code_challenge: string;
  readonly code_challenge_method: string;
  readonly state: string;
  readonly resource: string;
};

export const PARAM_NAMES = ['client_id', 'redirect_uri', 'response_type', 'code_challenge', 'code_challenge_method', 'state', 'resource'] as const;

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

export type Checked =
  /** Client or redirect URI cannot be trusted: show an error page, never redirect (OAuth 2.1 §4.1.2.1). */
  | { kind: 'page'; status: number; message: string }
  /** Any other problem goes back to the client's registered redirect URI. */
  | { kind: 'redirect'; client: OAuthClientDoc; target: RedirectTarget; error: string; description: string }
  | { kind: 'ok'; client: OAuthClientDoc; target: RedirectTarget; resource: string };

/**
 * A registration never used for a consent ends at its `unusedExpiresAt` (24 hours). The
 * expiry job deletes its document; until it has run, the same rule applies here.
 */
const expired = (client: OAuthClientDoc, now: Date): boolean => unusedExpired(client.unusedExpiresAt, now);

export async function checkAuthorizeRequest(api: Pick<ApiContext, 'deps' | 'apexOrigin'>, p: AuthorizeParams): Promise<Checked> {
  if (!p.client_id) return { kind: 'page', status: 400, message: 'The request names no client (client_id is missing).' };
  const found = await api.deps.queries.getOAuthClient(p.client_id);
  const client = found && !expired(found, api.deps.now()) ? found : undefined;
  if (!client) return { kind: 'page', status: 400, message: 'The client is not registered with this server. Ask the application to connect again.' };
  // The target is the registered string itself, never the request's copy of it.
  const registered = p.redirect_uri ? client.redirectUris.find((u) => u === p.redirect_uri) : undefined;
  if (registered === undefined) {
    return { kind: 'page', status: 400, message: 'The redirect URI is not one the client registered, so this request cannot be answered.' };
  }
  // Registered before the allow-list existed (view-source:, ws:, …): never redirected to.
  if (!isAllowedRedirectUri(registered)) {
    return { kind: 'page', status: 400, message: 'The client registered a redirect URI this server does not redirect to. Ask the application to register again.' };
  }
  const target: RedirectTarget = { redirectUri: registered, state: p.state };
  const back = (error: string, description: string): Checked => ({ kind: 'redirect', client, target, error, description });
  if (p.response_type !== 'code') return back('unsupported_response_type', 'only response_type=code is supported');
  if (!p.code_challenge) return back('invalid_request', 'code_challenge is required (PKCE)');
  if (p.code_challenge_method !== 'S256') return back('invalid_request', 'code_challenge_method must be S256');
  if (!isCodeChallenge(p.code_challenge)) return back('invalid_request', 'code_challenge is not a S256 challenge');
  const { resource } = urls(api);
  if (p.resource && !sameResource(p.resource, resource)) return back('invalid_target', `this server only grants access to ${resource}`);
  return { kind: 'ok', client, target, resource };
}

/** The registered redirect URI with the response parameters (and RFC 9207 `iss`). */
export function redirectTo(api: Pick<ApiContext, 'apexOrigin'>, target: RedirectTarget, values: Record<string, string>): string {
  const url = new URL(target.redirectUri);
  for (const [k, v] of Object.entries(values)) url.searchParams.set(k, v);
  if (target.state) url.searchParams.set('state', target.state);
  url.searchParams.set('iss', urls(api).origin);
  return url.toString();
}

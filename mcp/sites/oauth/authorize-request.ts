import type { ApiContext } from '../../../api/context.ts';
import { isCodeChallenge } from '../../../domain/connections.ts';
import type { OAuthClientDoc } from '../../../projections/documents.ts';
import { sameResource, urls } from '../http.ts';

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

export function readParams(get: (name: string) => string | undefined): AuthorizeParams {
  const out: Record<string, string> = {};
  for (const name of PARAM_NAMES) out[name] = get(name) ?? '';
  return out as AuthorizeParams;
}

/** The request parameters in a fixed order, as the consent form's signature covers them. */
export const paramList = (p: AuthorizeParams): string[] => PARAM_NAMES.map((n) => p[n]);

export type Checked =
  /** Client or redirect URI cannot be trusted: show an error page, never redirect (OAuth 2.1 §4.1.2.1). */
  | { kind: 'page'; status: number; message: string }
  /** Any other problem goes back to the client's redirect URI. */
  | { kind: 'redirect'; client: OAuthClientDoc; error: string; description: string }
  | { kind: 'ok'; client: OAuthClientDoc; resource: string };

export async function checkAuthorizeRequest(api: ApiContext, p: AuthorizeParams): Promise<Checked> {
  if (!p.client_id) return { kind: 'page', status: 400, message: 'The request names no client (client_id is missing).' };
  const client = await api.deps.readModel.getOAuthClient(p.client_id);
  if (!client) return { kind: 'page', status: 400, message: 'The client is not registered with this server. Ask the application to connect again.' };
  if (!p.redirect_uri || !client.redirectUris.includes(p.redirect_uri)) {
    return { kind: 'page', status: 400, message: 'The redirect URI is not one the client registered, so this request cannot be answered.' };
  }
  const back = (error: string, description: string): Checked => ({ kind: 'redirect', client, error, description });
  if (p.response_type !== 'code') return back('unsupported_response_type', 'only response_type=code is supported');
  if (!p.code_challenge) return back('invalid_request', 'code_challenge is required (PKCE)');
  if (p.code_challenge_method !== 'S256') return back('invalid_request', 'code_challenge_method must be S256');
  if (!isCodeChallenge(p.code_challenge)) return back('invalid_request', 'code_challenge is not a S256 challenge');
  const { resource } = urls(api);
  if (p.resource && !sameResource(p.resource, resource)) return back('invalid_target', `this server only grants access to ${resource}`);
  return { kind: 'ok', client, resource };
}

/** The client's redirect URI with the response parameters (and RFC 9207 `iss`). */
export function redirectTo(api: ApiContext, p: AuthorizeParams, values: Record<string, string>): string {
  const url = new URL(p.redirect_uri);
  for (const [k, v] of Object.entries(values)) url.searchParams.set(k, v);
  if (p.state) url.searchParams.set('state', p.state);
  url.searchParams.set('iss', urls(api).origin);
  return url.toString();
}

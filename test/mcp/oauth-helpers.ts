import { startAuthorization } from '@modelcontextprotocol/client';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthClientProvider, OAuthDiscoveryState, OAuthTokens } from '@modelcontextprotocol/client';

/** An in-memory OAuth client the SDK drives; the "browser" part is done by `consent`. */
export class TestProvider implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = '';
  authUrl?: URL;
  discovery?: OAuthDiscoveryState;
  constructor(
    readonly redirectUrl = 'http://127.0.0.1:9/callback',
    readonly name = 'Test Agent',
  ) {}
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: this.name, redirect_uris: [this.redirectUrl], token_endpoint_auth_method: 'none' };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authUrl = url;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery;
  }
}

const decode = (s: string) =>
  s.replace(/&(amp|lt|gt|quot|#39);/g, (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e]!);

export type ConsentChoice = { kind?: 'all' | 'group' | 'site'; group?: string; site?: string; caps?: string[]; decision?: 'approve' | 'deny' };

/** GETs the consent page as a signed-in browser and returns the page and its hidden fields. */
export async function consentForm(authUrl: URL | string, user = 'admin'): Promise<{ status: number; html: string; hidden: URLSearchParams }> {
  const res = await fetch(authUrl, { headers: { 'Remote-User': user }, redirect: 'manual' });
  const html = await res.text();
  const hidden = new URLSearchParams();
  for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) hidden.append(m[1]!, decode(m[2]!));
  return { status: res.status, html, hidden };
}

/** Submits the consent form the way a browser does (urlencoded POST, same origin) and returns the answer. */
export async function submitConsent(origin: string, hidden: URLSearchParams, choice: ConsentChoice = {}, user = 'admin'): Promise<Response> {
  const form = new URLSearchParams(hidden);
  form.set('target_kind', choice.kind ?? 'group');
  form.set('target_group', choice.group ?? 'mcp');
  form.set('target_site', choice.site ?? '');
  for (const c of choice.caps ?? ['publish']) form.append('caps', c);
  form.set('decision', choice.decision ?? 'approve');
  return fetch(`${origin}/mcp/oauth/authorize`, {
    method: 'POST',
    body: form,
    headers: { 'Remote-User': user, Origin: origin, 'Content-Type': 'application/x-www-form-urlencoded' },
    redirect: 'manual',
  });
}

/** Consent in one go: returns the redirect the browser is sent to. */
export async function approve(origin: string, authUrl: URL | string, choice: ConsentChoice = {}, user = 'admin'): Promise<URL> {
  const { status, hidden, html } = await consentForm(authUrl, user);
  if (status !== 200) throw new Error(`consent page answered ${status}: ${html}`);
  const res = await submitConsent(origin, hidden, choice, user);
  const location = res.headers.get('location');
  if (res.status !== 303 || !location) throw new Error(`consent answered ${res.status}: ${await res.text()}`);
  return new URL(location);
}

/** A raw token-endpoint call (form-encoded, as the spec requires). */
export async function tokenRequest(origin: string, params: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${origin}/mcp/oauth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(params),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** A raw JSON-RPC POST to /mcp with a bearer token (2025-era, stateless): the HTTP status tells auth apart. */
export async function rawMcp(origin: string, token: string | undefined, method = 'tools/list'): Promise<Response> {
  return fetch(`${origin}/mcp`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': '2025-06-18',
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: {} }),
  });
}

export type ConnectedClient = { clientId: string; access: string; refresh: string };

/**
 * The whole OAuth flow of a new client against a running service: registers it, approves
 * it on the consent form as admin and (unless `exchange` is false) redeems the code with PKCE.
 */
export async function connectClient(origin: string, name: string, choice: ConsentChoice, exchange = true): Promise<ConnectedClient | undefined> {
  const redirect = 'http://127.0.0.1:9/callback';
  const reg = await fetch(`${origin}/mcp/oauth/register`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ client_name: name, redirect_uris: [redirect], token_endpoint_auth_method: 'none' }),
  });
  if (reg.status !== 201) throw new Error(`registration failed: ${reg.status}`);
  const clientId = ((await reg.json()) as { client_id: string }).client_id;
  const metadata = await (await fetch(`${origin}/.well-known/oauth-authorization-server`)).json();
  const resource = `${origin}/mcp`;
  const { authorizationUrl, codeVerifier } = await startAuthorization(origin, { metadata, clientInformation: { client_id: clientId }, redirectUrl: redirect, state: 'st', resource });
  const code = (await approve(origin, authorizationUrl, choice)).searchParams.get('code');
  if (!code) throw new Error('the consent gave no code');
  if (!exchange) return undefined;
  const t = await tokenRequest(origin, { grant_type: 'authorization_code', code, code_verifier: codeVerifier, redirect_uri: redirect, client_id: clientId, resource });
  if (t.status !== 200) throw new Error(`code exchange failed: ${t.status}`);
  return { clientId, access: t.body.access_token as string, refresh: t.body.refresh_token as string };
}

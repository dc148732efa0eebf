/**
 * Client ID Metadata Documents (issue 29): a host's client_id is the https URL of its
 * description. A local https server with its own CA (trusted by the spawned service through
 * NODE_EXTRA_CA_CERTS) serves the documents; it counts what it was asked for, so "refused"
 * can be told apart from "fetched and rejected".
 */
import '../support/localhost-dns.ts';
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport, UnauthorizedError, refreshAuthorization } from '@modelcontextprotocol/client';
import { startService, type RunningService } from '../support/service.ts';
import { DocumentServer, type Route } from '../support/metadata-docs.ts';
import { createTestPki, type TestPki } from '../support/tls.ts';
import { approve, consentForm, submitConsent, TestProvider, tokenRequest } from './oauth-helpers.ts';

const REDIRECT = 'http://127.0.0.1:9/callback';

/** An authorization request for a client id, with a fresh PKCE pair. */
function authRequest(svc: RunningService, clientId: string, overrides: Record<string, string> = {}) {
  const verifier = randomBytes(32).toString('base64url');
  const params = new URLSearchParams({
    client_id: clientId,
    redirect_uri: REDIRECT,
    response_type: 'code',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    state: 'st-m',
    resource: `${svc.url}/mcp`,
    ...overrides,
  });
  return { verifier, url: `${svc.url}/mcp/oauth/authorize?${params}` };
}

const get = (url: string, user?: string) => fetch(url, { redirect: 'manual', headers: user ? { 'Remote-User': user } : {} });

/** An error page: HTML, no redirect of any kind; returns its text. */
async function errorPage(res: Response, status = 400): Promise<string> {
  expect(res.status).toBe(status);
  expect(res.headers.get('location')).toBeNull();
  expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  return res.text();
}

/** A provider that identifies itself by a metadata document instead of registering. */
class MetadataProvider extends TestProvider {
  constructor(readonly clientMetadataUrl: string) {
    super(REDIRECT, 'Metadata Agent');
  }
}

describe('OAuth client ID metadata documents', () => {
  let pki: TestPki;
  const docs = new DocumentServer();
  let svc: RunningService;
  let strict: RunningService;

  beforeAll(async () => {
    pki = await createTestPki();
    await docs.start(pki);
    // Each approver may cause 10 document fetches a minute: the longest test asks as `reviewer`.
    const env = { NODE_EXTRA_CA_CERTS: pki.caFile, SITES_MCP_GROUP: 'agents', SITES_MCP_ALLOWED_USERS: 'admin,reviewer' };
    // The documents are served from loopback: only with the switch may the service fetch them.
    [svc, strict] = await Promise.all([startService({ env: { ...env, SITES_OAUTH_ALLOW_PRIVATE_METADATA: 'true' } }), startService({ env })]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([svc?.stop(), strict?.stop(), docs.stop()]);
  });

  it('the authorization server advertises client_id_metadata_document_supported', async () => {
    const asm = await (await fetch(`${svc.url}/.well-known/oauth-authorization-server`)).json();
    expect(asm).toMatchObject({ client_id_metadata_document_supported: true, registration_endpoint: `${svc.url}/mcp/oauth/register`, authorization_response_iss_parameter_supported: true });
  });

  it('the whole flow with the SDK client using a metadata-document client id: consent names its host, code with iss, tools, refresh', async () => {
    const path = '/oauth/agent.json';
    const clientId = docs.json(path, (url) => ({
      client_id: url,
      client_name: 'Metadata Agent',
      client_uri: 'https://agent.example/',
      redirect_uris: [REDIRECT, 'https://agent.example/cb'],
      grant_types: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    }));
    const provider = new MetadataProvider(clientId);
    const first = new Client({ name: 'cimd-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp`), { authProvider: provider });
    await expect(first.connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    // The SDK used the URL as its client id: it did not register.
    expect(provider.client?.client_id).toBe(clientId);
    expect(provider.authUrl?.searchParams.get('client_id')).toBe(clientId);

    const { html, status } = await consentForm(provider.authUrl!);
    expect(status).toBe(200);
    expect(html).toContain(`<span class="client-host">localhost:${docs.port}</span>`); // who is asking, prominently
    expect(html).toContain('Metadata Agent');
    const fetchedBefore = docs.count(path);
    const back = await approve(svc.url, provider.authUrl!, { kind: 'group', group: 'agents', caps: ['publish'] });
    expect(docs.count(path)).toBe(fetchedBefore); // GET and POST: one fetch, cached (max-age=300)
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
    expect(back.searchParams.get('iss')).toBe(svc.url);
    await transport.finishAuth(back.searchParams);
    expect(provider.saved?.access_token).toMatch(/^mcpa_/);

    const client = new Client({ name: 'cimd-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp`), { authProvider: provider }));
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('publish_site');
    await client.close();

    const listed = await (await fetch(`${svc.url}/api/mcp/connections`, { headers: { 'Remote-User': 'admin' } })).json();
    expect(listed.connections).toContainEqual(expect.objectContaining({ client_id: clientId, client_name: 'Metadata Agent', user: 'admin' }));

    // Refresh works with the URL as client id; another client id cannot use the refresh token.
    const metadata = await (await fetch(`${svc.url}/.well-known/oauth-authorization-server`)).json();
    const stolen = await tokenRequest(svc.url, { grant_type: 'refresh_token', refresh_token: provider.saved!.refresh_token!, client_id: docs.url('/oauth/other.json') });
    expect(stolen.status).toBe(400);
    const tokens = await refreshAuthorization(svc.url, { metadata, clientInformation: provider.client!, refreshToken: provider.saved!.refresh_token!, resource: `${svc.url}/mcp` });
    expect(tokens.access_token).toMatch(/^mcpa_/);
  }, 60_000);

  it('deny sends access_denied with iss to the document\'s redirect URI', async () => {
    const clientId = docs.json('/oauth/deny.json', (url) => ({ client_id: url, client_name: 'Denied Agent', redirect_uris: [REDIRECT] }));
    const { hidden } = await consentForm(authRequest(svc, clientId).url);
    const res = await submitConsent(svc.url, hidden, { decision: 'deny' });
    expect(res.status).toBe(303);
    const back = new URL(res.headers.get('location')!);
    expect(Object.fromEntries(back.searchParams)).toMatchObject({ error: 'access_denied', state: 'st-m', iss: svc.url });
  });

  it('a document cannot know the port a native host will listen on: a loopback URI matches any port (RFC 8252 §7.3), and the code is bound to it', async () => {
    const clientId = docs.json('/oauth/native.json', (url) => ({ client_id: url, client_name: 'Native Host', redirect_uris: ['http://127.0.0.1/callback'] }));
    const port = 40000 + Math.floor(Math.random() * 20000);
    const redirect = `http://127.0.0.1:${port}/callback`;
    const { url, verifier } = authRequest(svc, clientId, { redirect_uri: redirect });
    const back = await approve(svc.url, url, { kind: 'group', group: 'agents' });
    expect(`${back.origin}${back.pathname}`).toBe(redirect);
    expect(back.searchParams.get('iss')).toBe(svc.url);
    const code = back.searchParams.get('code')!;
    const elsewhere = await tokenRequest(svc.url, { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: 'http://127.0.0.1/callback', client_id: clientId });
    expect(elsewhere.status).toBe(400); // the code is bound to the URI the answer went to
    const redeemed = await tokenRequest(svc.url, { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: redirect, client_id: clientId });
    expect(redeemed.status).toBe(200);
    // Not another host or path on loopback, nor a port on a non-loopback URI.
    for (const other of [`http://127.0.0.1:${port}/other`, `http://localhost:${port}/callback`]) {
      await errorPage(await get(authRequest(svc, clientId, { redirect_uri: other }).url, 'admin'));
    }
  });

  it('respects Cache-Control: no-store is fetched at each request; max-age is reused', async () => {
    const fresh = docs.json('/oauth/no-store.json', (url) => ({ client_id: url, redirect_uris: [REDIRECT] }), { 'Cache-Control': 'no-store' });
    for (let i = 1; i <= 3; i++) {
      expect((await get(authRequest(svc, fresh).url, 'admin')).status).toBe(200);
      expect(docs.count('/oauth/no-store.json')).toBe(i);
    }
    const cached = docs.json('/oauth/cached.json', (url) => ({ client_id: url, redirect_uris: [REDIRECT] }), { 'Cache-Control': 'public, max-age=600' });
    for (let i = 0; i < 3; i++) expect((await get(authRequest(svc, cached).url, 'admin')).status).toBe(200);
    expect(docs.count('/oauth/cached.json')).toBe(1);
    // No name in the document: the consent shows the host as the name too.
    expect(await (await get(authRequest(svc, cached).url, 'admin')).text()).toContain(`Connect localhost:${docs.port}`);
  });

  it('attack: a document whose client_id differs (someone else\'s description) → error page', async () => {
    const other = docs.url('/oauth/real-client.json');
    const clientId = docs.json('/oauth/impostor.json', () => ({ client_id: other, client_name: 'Impostor', redirect_uris: ['https://evil.example/landing'] }));
    const text = await errorPage(await get(authRequest(svc, clientId, { redirect_uri: 'https://evil.example/landing' }).url, 'admin'));
    expect(text).toContain('names another client_id');
    expect(text).not.toContain('Impostor');
    // Not even a trailing-slash variant of the URL counts.
    const slash = docs.json('/oauth/slash.json', (url) => ({ client_id: `${url}/`, redirect_uris: [REDIRECT] }));
    await errorPage(await get(authRequest(svc, slash).url, 'admin'));
  });

  it('attack: a redirect_uri the document does not list → error page, even with an otherwise bad request', async () => {
    const clientId = docs.json('/oauth/listed.json', (url) => ({ client_id: url, redirect_uris: [REDIRECT] }));
    for (const extra of [{}, { response_type: 'x' }, { code_challenge_method: 'plain' }] as Record<string, string>[]) {
      const text = await errorPage(await get(authRequest(svc, clientId, { redirect_uri: 'https://evil.example/landing', ...extra }).url, 'admin'));
      expect(text).not.toContain('evil.example');
    }
    // And a listed one with a bad request is a page too (nothing before the decision is redirected).
    await errorPage(await get(authRequest(svc, clientId, { response_type: 'x' }).url, 'admin'));
  });

  it('attack: an oversized, non-JSON, redirecting, missing or secret-carrying document → error page', async () => {
    const cases: [string, Route, RegExp][] = [
      ['/oauth/huge.json', (_q, res) => res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ client_id: docs.url('/oauth/huge.json'), redirect_uris: [REDIRECT], pad: 'x'.repeat(6000) })), /larger than 5120 bytes/],
      ['/oauth/huge-chunked.json', (_q, res) => { res.writeHead(200, { 'Content-Type': 'application/json' }); res.write(`{"client_id":"${docs.url('/oauth/huge-chunked.json')}","pad":"`); res.end(`${'x'.repeat(6000)}"}`); }, /larger than 5120 bytes/],
      ['/oauth/page.json', (_q, res) => res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><title>Hi</title>'), /not JSON/],
      ['/oauth/array.json', (_q, res) => res.writeHead(200, { 'Content-Type': 'application/json' }).end('[1,2]'), /not a JSON object/],
      ['/oauth/moved.json', (_q, res) => res.writeHead(302, { Location: docs.url('/oauth/listed.json') }).end(), /redirects elsewhere \(HTTP 302\)/],
      ['/oauth/gone.json', (_q, res) => res.writeHead(404).end(), /answered HTTP 404/],
      ['/oauth/secret.json', (_q, res) => res.writeHead(200).end(JSON.stringify({ client_id: docs.url('/oauth/secret.json'), redirect_uris: [REDIRECT], client_secret: 's3cret' })), /client secret/],
      ['/oauth/jwt.json', (_q, res) => res.writeHead(200).end(JSON.stringify({ client_id: docs.url('/oauth/jwt.json'), redirect_uris: [REDIRECT], token_endpoint_auth_method: 'private_key_jwt' })), /public clients/],
      ['/oauth/js.json', (_q, res) => res.writeHead(200).end(JSON.stringify({ client_id: docs.url('/oauth/js.json'), redirect_uris: ['javascript:alert(1)'] })), /redirect URI this server does not send answers to/],
    ];
    for (const [path, route, message] of cases) {
      docs.routes.set(path, route);
      const text = await errorPage(await get(authRequest(svc, docs.url(path)).url, 'reviewer'));
      expect(text, path).toMatch(message);
    }
    // The redirect was not followed.
    const followed = docs.count('/oauth/listed.json');
    await get(authRequest(svc, docs.url('/oauth/moved.json')).url, 'reviewer');
    expect(docs.count('/oauth/listed.json')).toBe(followed);
  });

  it('attack: client_id URLs that cannot be documents (http, no path, dot segments, user info) → error page, nothing fetched', async () => {
    const before = docs.hits.length;
    for (const id of [
      `http://localhost:${docs.port}/oauth/listed.json`,
      `https://localhost:${docs.port}/`,
      `https://localhost:${docs.port}`,
      `https://localhost:${docs.port}/oauth/../oauth/listed.json`,
      `https://localhost:${docs.port}/oauth/%2e%2e/listed.json`,
      `https://user:pw@localhost:${docs.port}/oauth/listed.json`,
      `https://localhost:${docs.port}/oauth/listed.json#x`,
    ]) {
      await errorPage(await get(authRequest(svc, id).url, 'admin'));
    }
    expect(docs.hits.length).toBe(before);
  });

  it('attack: a client_id URL on a private address without SITES_OAUTH_ALLOW_PRIVATE_METADATA → error page, nothing fetched', async () => {
    const clientId = docs.json('/oauth/private.json', (url) => ({ client_id: url, redirect_uris: [REDIRECT] }));
    const before = docs.hits.length;
    // `localhost` is a DNS name that resolves to loopback; 127.0.0.1 is the literal.
    for (const id of [clientId, docs.url('/oauth/private.json', '127.0.0.1')]) {
      const text = await errorPage(await get(authRequest(strict, id).url, 'admin'));
      expect(text).toContain('private or local network address');
      expect(text).toContain('SITES_OAUTH_ALLOW_PRIVATE_METADATA');
    }
    expect(docs.hits.length).toBe(before);
  });

  it('attack: nobody but a signed-in approver makes the service fetch a document', async () => {
    const clientId = docs.json('/oauth/probe.json', (url) => ({ client_id: url, redirect_uris: [REDIRECT] }));
    const before = docs.hits.length;
    expect((await get(authRequest(svc, clientId).url)).status).toBe(401);
    expect((await get(authRequest(svc, clientId).url, 'viewer')).status).toBe(403);
    const posted = await fetch(`${svc.url}/mcp/oauth/authorize`, {
      method: 'POST',
      body: new URLSearchParams({ client_id: clientId, redirect_uri: REDIRECT, decision: 'approve' }),
      redirect: 'manual',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Remote-User': 'admin', Origin: svc.url },
    });
    expect(posted.status).toBe(403); // no signed form: refused before any fetch
    expect(posted.headers.get('location')).toBeNull();
    // The token endpoint never fetches either.
    await tokenRequest(svc.url, { grant_type: 'authorization_code', code: 'x', code_verifier: 'y', redirect_uri: REDIRECT, client_id: clientId });
    expect(docs.hits.length).toBe(before);
  });

  it('dynamic registration keeps working next to metadata documents, with iss', async () => {
    const reg = await fetch(`${svc.url}/mcp/oauth/register`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ client_name: 'Old Host', redirect_uris: [REDIRECT] }),
    });
    expect(reg.status).toBe(201);
    const { client_id } = (await reg.json()) as { client_id: string };
    const { url, verifier } = authRequest(svc, client_id);
    const back = await approve(svc.url, url, { kind: 'group', group: 'agents' });
    expect(back.searchParams.get('iss')).toBe(svc.url);
    const t = await tokenRequest(svc.url, { grant_type: 'authorization_code', code: back.searchParams.get('code')!, code_verifier: verifier, redirect_uri: REDIRECT, client_id, resource: `${svc.url}/mcp` });
    expect(t.status).toBe(200);
  });
});

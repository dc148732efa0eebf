import '../support/localhost-dns.ts';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport, startAuthorization } from '@modelcontextprotocol/client';
import { startService, type RunningService } from '../support/service.ts';
import { approve, consentForm, rawMcp, submitConsent, TestProvider, tokenRequest } from './oauth-helpers.ts';

type ToolResult = { isError?: boolean; content: { type: string; text: string }[] };
const text = (r: unknown) => (r as ToolResult).content.map((c) => c.text).join('\n');
const REDIRECT = 'http://127.0.0.1:9/callback';

async function register(svc: RunningService, body: unknown = { client_name: 'Bad Input Bot', redirect_uris: [REDIRECT] }) {
  const res = await fetch(`${svc.url}/mcp/oauth/register`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, string> };
}

/** An authorization request with a fresh PKCE pair, built by the SDK. */
async function authorization(svc: RunningService, clientId: string, resource = `${svc.url}/mcp`) {
  const metadata = await (await fetch(`${svc.url}/.well-known/oauth-authorization-server`)).json();
  return startAuthorization(svc.url, { metadata, clientInformation: { client_id: clientId }, redirectUrl: REDIRECT, state: 'st-1', resource });
}

/** Register, consent, exchange: a fresh connection's tokens. */
async function connect(svc: RunningService, caps = ['publish']) {
  const { body: client } = await register(svc);
  const { authorizationUrl, codeVerifier } = await authorization(svc, client.client_id!);
  const back = await approve(svc.url, authorizationUrl, { kind: 'group', group: 'bots', caps });
  const code = back.searchParams.get('code')!;
  const { body } = await tokenRequest(svc.url, { grant_type: 'authorization_code', code, code_verifier: codeVerifier, redirect_uri: REDIRECT, client_id: client.client_id!, resource: `${svc.url}/mcp` });
  return { clientId: client.client_id!, access: body.access_token as string, refresh: body.refresh_token as string };
}

async function countFiles(dir: string): Promise<number> {
  let n = 0;
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) if (e.isFile()) n++;
  return n;
}

describe('MCP connector: bad input is refused as the OAuth and MCP specs say, and changes nothing', () => {
  let svc: RunningService;
  beforeAll(async () => {
    svc = await startService({ env: { SITES_MAX_UPLOAD_BYTES: '65536', SITES_MAX_EXTRACT_ENTRIES: '5', SITES_MCP_GROUP: 'bots' } });
  }, 30_000);
  afterAll(async () => {
    await svc?.stop();
  });

  it('registration: missing or unsafe redirect URIs, unsupported grants, not JSON → 400 with RFC 7591 errors', async () => {
    expect(await register(svc, { client_name: 'x' })).toMatchObject({ status: 400, body: { error: 'invalid_redirect_uri' } });
    expect(await register(svc, { redirect_uris: ['http://evil.example/cb'] })).toMatchObject({ status: 400, body: { error: 'invalid_redirect_uri' } });
    expect(await register(svc, { redirect_uris: ['https://app.example/cb#frag'] })).toMatchObject({ status: 400, body: { error: 'invalid_redirect_uri' } });
    expect(await register(svc, { redirect_uris: ['javascript:alert(1)'] })).toMatchObject({ status: 400, body: { error: 'invalid_redirect_uri' } });
    expect(await register(svc, { redirect_uris: [REDIRECT], grant_types: ['client_credentials'] })).toMatchObject({ status: 400, body: { error: 'invalid_client_metadata' } });
    const notJson = await fetch(`${svc.url}/mcp/oauth/register`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{' });
    expect(notJson.status).toBe(400);
    const ok = await register(svc, { client_name: 'Fine', redirect_uris: ['https://app.example/cb', 'http://localhost:3000/cb', 'com.example.app:/cb'], token_endpoint_auth_method: 'client_secret_basic' });
    expect(ok).toMatchObject({ status: 201, body: { token_endpoint_auth_method: 'none', client_name: 'Fine' } });
  });

  it('an unregistered redirect URI or client gets an error page, never a redirect', async () => {
    const { body: client } = await register(svc);
    const { authorizationUrl } = await authorization(svc, client.client_id!);
    const evil = new URL(authorizationUrl);
    evil.searchParams.set('redirect_uri', 'https://evil.example/cb');
    const page = await fetch(evil, { headers: { 'Remote-User': 'admin' }, redirect: 'manual' });
    expect(page.status).toBe(400);
    expect(page.headers.get('location')).toBeNull();
    const unknown = new URL(authorizationUrl);
    unknown.searchParams.set('client_id', 'mcpclient_00000000000000000000000000000000');
    expect((await fetch(unknown, { headers: { 'Remote-User': 'admin' }, redirect: 'manual' })).status).toBe(400);
    // Tampering with the form's redirect URI does not help either.
    const { hidden } = await consentForm(authorizationUrl);
    hidden.set('redirect_uri', 'https://evil.example/cb');
    const post = await submitConsent(svc.url, hidden);
    expect(post.status).toBe(400);
    expect(post.headers.get('location')).toBeNull();
  });

  it('only allowed, signed-in users approve; forged or cross-site forms are refused; deny → access_denied', async () => {
    const { body: client } = await register(svc);
    const { authorizationUrl } = await authorization(svc, client.client_id!);
    expect((await fetch(authorizationUrl, { redirect: 'manual' })).status).toBe(401);
    expect((await consentForm(authorizationUrl, 'bob')).status).toBe(403);
    const { hidden } = await consentForm(authorizationUrl);
    expect((await submitConsent(svc.url, hidden, {}, 'bob')).status).toBe(403);
    const forged = new URLSearchParams(hidden);
    forged.set('csrf', `${Date.now()}.AAAA`);
    expect((await submitConsent(svc.url, forged)).status).toBe(403);
    const crossSite = await fetch(`${svc.url}/mcp/oauth/authorize`, {
      method: 'POST',
      body: new URLSearchParams([...hidden, ['target_kind', 'all'], ['caps', 'purge'], ['decision', 'approve']]),
      headers: { 'Remote-User': 'admin', Origin: 'http://evil.localhost', 'Content-Type': 'application/x-www-form-urlencoded' },
      redirect: 'manual',
    });
    expect(crossSite.status).toBe(403);
    const denied = await submitConsent(svc.url, hidden, { decision: 'deny' });
    expect(denied.status).toBe(303);
    const back = new URL(denied.headers.get('location')!);
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('state')).toBe('st-1');
    const bad = await submitConsent(svc.url, hidden, { kind: 'group', group: 'Not A Label!' });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('not a valid label');
    const listed = await (await fetch(`${svc.url}/api/mcp/connections`, { headers: { 'Remote-User': 'admin' } })).json();
    expect(listed.connections).toHaveLength(0);
  });

  it('PKCE is required and S256 only', async () => {
    const { body: client } = await register(svc);
    const { authorizationUrl } = await authorization(svc, client.client_id!);
    const plain = new URL(authorizationUrl);
    plain.searchParams.set('code_challenge_method', 'plain');
    // Found before the user decided anything: an error page, never a redirect (spec §2).
    const r1 = await fetch(plain, { headers: { 'Remote-User': 'admin' }, redirect: 'manual' });
    expect(r1.status).toBe(400);
    expect(r1.headers.get('location')).toBeNull();
    expect(await r1.text()).toContain('invalid_request');
    const none = new URL(authorizationUrl);
    none.searchParams.delete('code_challenge');
    const r2 = await fetch(none, { headers: { 'Remote-User': 'admin' }, redirect: 'manual' });
    expect(r2.status).toBe(400);
    expect(r2.headers.get('location')).toBeNull();
  });

  it('wrong PKCE verifier → invalid_grant; a reused code → invalid_grant and the tokens it gave are revoked', async () => {
    const { body: client } = await register(svc);
    const { authorizationUrl, codeVerifier } = await authorization(svc, client.client_id!);
    const code = (await approve(svc.url, authorizationUrl, { kind: 'group', group: 'bots' })).searchParams.get('code')!;
    const base = { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: client.client_id! };
    expect(await tokenRequest(svc.url, { ...base, code_verifier: 'x'.repeat(43) })).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(await tokenRequest(svc.url, { ...base, code_verifier: codeVerifier, redirect_uri: 'http://127.0.0.1:9/other' })).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(await tokenRequest(svc.url, { ...base, code_verifier: codeVerifier, client_id: 'mcpclient_nobody' })).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    const ok = await tokenRequest(svc.url, { ...base, code_verifier: codeVerifier });
    expect(ok.status).toBe(200);
    expect((await rawMcp(svc.url, ok.body.access_token as string)).status).toBe(200);
    expect(await tokenRequest(svc.url, { ...base, code_verifier: codeVerifier })).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect((await rawMcp(svc.url, ok.body.access_token as string)).status).toBe(401);
  });

  it('a token for another resource is refused: at the authorization endpoint, the token endpoint and /mcp', async () => {
    const { body: client } = await register(svc);
    const other = await authorization(svc, client.client_id!, 'https://other.example/mcp');
    const r = await fetch(other.authorizationUrl, { headers: { 'Remote-User': 'admin' }, redirect: 'manual' });
    expect(r.status).toBe(400); // an error page: nothing is redirected before the user decides
    expect(r.headers.get('location')).toBeNull();
    expect(await r.text()).toContain('invalid_target');
    const { authorizationUrl, codeVerifier } = await authorization(svc, client.client_id!);
    const code = (await approve(svc.url, authorizationUrl)).searchParams.get('code')!;
    const res = await tokenRequest(svc.url, { grant_type: 'authorization_code', code, code_verifier: codeVerifier, redirect_uri: REDIRECT, client_id: client.client_id!, resource: 'https://other.example/mcp' });
    expect(res).toMatchObject({ status: 400, body: { error: 'invalid_target' } });
    // An API key is a token for the ingest plane, not for /mcp.
    const key = await svc.createKey(['--name', 'ci', '--grant', 'bots:publish']);
    const withKey = await rawMcp(svc.url, key);
    expect(withKey.status).toBe(401);
    expect(withKey.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
  });

  it('a replayed refresh token revokes the connection', async () => {
    const t = await connect(svc);
    const rotated = await tokenRequest(svc.url, { grant_type: 'refresh_token', refresh_token: t.refresh, client_id: t.clientId });
    expect(rotated.status).toBe(200);
    const replay = await tokenRequest(svc.url, { grant_type: 'refresh_token', refresh_token: t.refresh, client_id: t.clientId });
    expect(replay).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect((await rawMcp(svc.url, rotated.body.access_token as string)).status).toBe(401);
    expect(await tokenRequest(svc.url, { grant_type: 'refresh_token', refresh_token: rotated.body.refresh_token as string, client_id: t.clientId })).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const listed = await (await fetch(`${svc.url}/api/mcp/connections?revoked=true`, { headers: { 'Remote-User': 'admin' } })).json();
    expect(listed.connections.find((c: { revoked_reason?: string }) => c.revoked_reason === 'refresh token reused')).toBeTruthy();
  });

  it('the CLI lists connections and revokes one; its token fails on the next call', async () => {
    const t = await connect(svc);
    const id = t.access.slice('mcpa_'.length, t.access.indexOf('.'));
    const listed = await svc.cli(['mcp', 'connections', '--json']);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout).find((c: { id: string }) => c.id === id)).toMatchObject({ user: 'admin', expires_at: expect.any(String) }); // listed: active (spec §13 shape)
    expect(listed.stdout).not.toMatch(/mcpa_|mcpr_|Hash/);
    const revoked = await svc.cli(['mcp', 'revoke', '--id', id]);
    expect(revoked.code).toBe(0);
    expect((await rawMcp(svc.url, t.access)).status).toBe(401);
    expect((await svc.cli(['mcp', 'revoke', '--id', id])).code).toBe(1);
    expect((await svc.cli(['mcp', 'revoke'])).code).toBe(2);
    const after = JSON.parse((await svc.cli(['mcp', 'connections', '--json'])).stdout);
    expect(after.find((c: { id: string }) => c.id === id)).toBeUndefined();
  });

  it('connections, codes and tokens survive a restart (they are events, not memory)', async () => {
    const t = await connect(svc);
    const { body: client } = await register(svc);
    const { authorizationUrl, codeVerifier } = await authorization(svc, client.client_id!);
    const code = (await approve(svc.url, authorizationUrl)).searchParams.get('code')!;
    await svc.restart();
    expect((await rawMcp(svc.url, t.access)).status).toBe(200);
    const redeemed = await tokenRequest(svc.url, { grant_type: 'authorization_code', code, code_verifier: codeVerifier, redirect_uri: REDIRECT, client_id: client.client_id! });
    expect(redeemed.status).toBe(200);
    expect((await tokenRequest(svc.url, { grant_type: 'refresh_token', refresh_token: t.refresh, client_id: t.clientId })).status).toBe(200);
  }, 30_000);

  it('files with unsafe paths, over the size or entry limits → isError, and nothing is stored or published', async () => {
    const t = await connect(svc, ['publish']);
    const provider = new TestProvider(REDIRECT);
    provider.client = { client_id: t.clientId };
    provider.saved = { access_token: t.access, refresh_token: t.refresh, token_type: 'Bearer' };
    const client = new Client({ name: 'bad-input', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp`), { authProvider: provider }));
    const before = await countFiles(join(svc.dataDir));
    const index = { path: 'index.html', content: '<h1>x</h1>' };
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ['dotdot', { files: [index, { path: '../escape.html', content: 'x' }] }, /^invalid: .*\.\./],
      ['inner dotdot', { files: [index, { path: 'a/../../b.html', content: 'x' }] }, /^invalid: /],
      ['absolute', { files: [index, { path: '/etc/passwd', content: 'x' }] }, /^invalid: .*absolute/],
      ['backslash', { files: [index, { path: 'a\\b.html', content: 'x' }] }, /^invalid: .*backslash/],
      ['nul', { files: [index, { path: 'a\u0000.html', content: 'x' }] }, /^invalid: .*NUL/],
      ['duplicate', { files: [index, { path: './index.html', content: 'y' }] }, /^invalid: .*twice/],
      ['bad base64', { files: [index, { path: 'a.png', content: '!!not base64!!', encoding: 'base64' }] }, /^invalid: .*base64/],
      ['no index', { files: [{ path: 'about.html', content: 'x' }] }, /^invalid: .*index\.html/],
      ['both', { html: '<h1>x</h1>', files: [index] }, /^invalid: .*exactly one/],
      ['too large', { files: [index, { path: 'big.bin', content: Buffer.alloc(70_000, 7).toString('base64'), encoding: 'base64' }] }, /^too_large: /],
      ['too large html', { html: 'x'.repeat(70_000) }, /^too_large: /],
      ['too many', { files: [index, ...[1, 2, 3, 4, 5].map((i) => ({ path: `p${i}.html`, content: 'x' }))] }, /^too_large: .*5 entries/],
    ];
    for (const [name, files, expected] of cases) {
      const r = await client.callTool({ name: 'publish_site', arguments: { group: 'bots', slug: 'bad', title: name, ...files } });
      expect((r as ToolResult).isError, name).toBe(true);
      expect(text(r), name).toMatch(expected);
    }
    expect((await fetch(svc.siteUrl('bots/bad'))).status).toBe(404);
    const list = JSON.parse(text(await client.callTool({ name: 'list_sites', arguments: {} })));
    expect(list.count).toBe(0);
    expect(await countFiles(join(svc.dataDir))).toBe(before);
    await client.close();
  });
});

describe('MCP connector: expired access tokens', () => {
  let svc: RunningService;
  beforeAll(async () => {
    svc = await startService({ env: { SITES_MCP_TOKEN_TTL: '1s', SITES_MCP_GROUP: 'bots' } });
  }, 30_000);
  afterAll(async () => {
    await svc?.stop();
  });

  it('an expired access token → 401 invalid_token; a refresh gives a working one', async () => {
    const t = await connect(svc);
    expect((await rawMcp(svc.url, t.access)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1100)); // the TTL is wall-clock time in the service process
    const expired = await rawMcp(svc.url, t.access);
    expect(expired.status).toBe(401);
    expect(expired.headers.get('www-authenticate')).toMatch(/error="invalid_token", error_description="the access token has expired"/);
    const fresh = await tokenRequest(svc.url, { grant_type: 'refresh_token', refresh_token: t.refresh, client_id: t.clientId });
    expect(fresh.status).toBe(200);
    expect(fresh.body.expires_in).toBe(1);
    expect((await rawMcp(svc.url, fresh.body.access_token as string)).status).toBe(200);
  });
});

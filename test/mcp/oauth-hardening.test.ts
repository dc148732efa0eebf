/**
 * The OAuth endpoints under attack (spec §2 "Published content never acts on the control
 * plane"): each test is written as the attack, next to the legitimate path it must not
 * break. The service runs as a real process on the embedded stack; where time must pass
 * (24-hour expiry), the expiry command runs in this process on the same data dir with an
 * injected clock, the way `sites` CLI commands share a running service's data.
 */
import '../support/localhost-dns.ts';
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expireUnusedClients } from '../../app/jobs/expire-unused-clients.ts';
import { loadConfig } from '../../host/config.ts';
import { createService, type Service } from '../../host/service.ts';
import { startService, type RunningService } from '../support/service.ts';
import { approve, consentForm, submitConsent, tokenRequest } from './oauth-helpers.ts';

const REDIRECT = 'http://127.0.0.1:9/callback';
const EVIL = 'https://evil.example/cb';

type Json = Record<string, unknown>;

async function register(svc: RunningService, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${svc.url}/mcp/oauth/register`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Json };
}

const newClient = async (svc: RunningService, uris = [REDIRECT]) => {
  const r = await register(svc, { client_name: 'Hardening Bot', redirect_uris: uris });
  expect(r.status).toBe(201);
  return r.body.client_id as string;
};

/** A well-formed authorization request with a fresh PKCE pair. */
function authRequest(svc: RunningService, clientId: string, overrides: Record<string, string> = {}) {
  const verifier = randomBytes(32).toString('base64url');
  const params = new URLSearchParams({
    client_id: clientId,
    redirect_uri: REDIRECT,
    response_type: 'code',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    state: 'st-7',
    resource: `${svc.url}/mcp`,
    ...overrides,
  });
  return { params, verifier, url: `${svc.url}/mcp/oauth/authorize?${params}` };
}

const get = (url: string, user?: string) => fetch(url, { redirect: 'manual', headers: user ? { 'Remote-User': user } : {} });

/** An error page: HTML, the given status, and no redirect of any kind. */
async function expectErrorPage(res: Response, status = 400) {
  expect(res.status).toBe(status);
  expect(res.headers.get('location')).toBeNull();
  expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  const body = await res.text();
  expect(body).not.toContain('evil.example');
  expect(body).not.toMatch(/http-equiv/i);
}

describe('OAuth authorize: answers go only to a registered redirect URI', () => {
  let svc: RunningService;
  let clientId = '';
  beforeAll(async () => {
    svc = await startService({ env: { SITES_MCP_GROUP: 'bots', SITES_ALIAS_DOMAINS: 'alias.test' } });
    clientId = await newClient(svc);
  }, 30_000);
  afterAll(async () => {
    await svc?.stop();
  });

  it('attack: an unregistered redirect_uri on the GET → error page, no Location (signed in or not, whatever else is wrong)', async () => {
    for (const extra of [{}, { response_type: 'token' }, { code_challenge: '' }, { resource: 'https://other.example/mcp' }] as Record<string, string>[]) {
      const { url } = authRequest(svc, clientId, { redirect_uri: EVIL, ...extra });
      await expectErrorPage(await get(url));
      await expectErrorPage(await get(url, 'admin'));
    }
    // Near misses are not the registered URI either.
    for (const near of [`${REDIRECT}/`, REDIRECT.toUpperCase(), `${REDIRECT}?x=1`, 'http://127.0.0.1:9/callbac', ' http://127.0.0.1:9/callback']) {
      await expectErrorPage(await get(authRequest(svc, clientId, { redirect_uri: near }).url, 'admin'));
    }
    await expectErrorPage(await get(authRequest(svc, clientId, { redirect_uri: '' }).url, 'admin'));
  });

  it('attack: an unregistered redirect_uri in the consent form POST → error page, no Location', async () => {
    const { hidden } = await consentForm(authRequest(svc, clientId).url);
    for (const decision of ['approve', 'deny'] as const) {
      const tampered = new URLSearchParams(hidden);
      tampered.set('redirect_uri', EVIL);
      await expectErrorPage(await submitConsent(svc.url, tampered, { decision }));
    }
    // Without a form the server showed (no csrf), and without a signed-in user: still a page.
    const bare = authRequest(svc, clientId, { redirect_uri: EVIL, response_type: 'token' }).params;
    const res = await fetch(`${svc.url}/mcp/oauth/authorize`, { method: 'POST', body: bare, redirect: 'manual', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
    await expectErrorPage(res);
  });

  it('attack: a repeated redirect_uri, or parameters in both the query and the form → error page, no Location', async () => {
    // GET: the registered URI and another one, in either order; or the registered one twice.
    for (const second of [EVIL, REDIRECT]) {
      const { params } = authRequest(svc, clientId, { response_type: 'token' });
      params.append('redirect_uri', second);
      await expectErrorPage(await get(`${svc.url}/mcp/oauth/authorize?${params}`, 'admin'));
      const first = authRequest(svc, clientId, { redirect_uri: second, response_type: 'token' }).params;
      first.append('redirect_uri', REDIRECT);
      await expectErrorPage(await get(`${svc.url}/mcp/oauth/authorize?${first}`, 'admin'));
    }
    // A repeated client_id or state is just as ambiguous.
    for (const name of ['client_id', 'state', 'response_type']) {
      const { params } = authRequest(svc, clientId);
      params.append(name, params.get(name)!);
      await expectErrorPage(await get(`${svc.url}/mcp/oauth/authorize?${params}`, 'admin'));
    }
    // POST: a second redirect_uri appended to a genuine, signed form.
    const { hidden } = await consentForm(authRequest(svc, clientId).url);
    const doubled = new URLSearchParams(hidden);
    doubled.append('redirect_uri', EVIL);
    await expectErrorPage(await submitConsent(svc.url, doubled, { decision: 'deny' }));
    // POST: the genuine form, with a redirect_uri in the query as well.
    const both = await fetch(`${svc.url}/mcp/oauth/authorize?redirect_uri=${encodeURIComponent(EVIL)}`, {
      method: 'POST',
      body: (() => {
        const f = new URLSearchParams(hidden);
        f.set('decision', 'deny');
        return f;
      })(),
      redirect: 'manual',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Remote-User': 'admin', Origin: svc.url },
    });
    await expectErrorPage(both);
    // POST: a repeated decision.
    const decisions = new URLSearchParams(hidden);
    decisions.append('decision', 'deny');
    decisions.append('decision', 'approve');
    await expectErrorPage(await fetch(`${svc.url}/mcp/oauth/authorize`, {
      method: 'POST',
      body: decisions,
      redirect: 'manual',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Remote-User': 'admin', Origin: svc.url },
    }));
  });

  it('attack: an unknown client → error page, no Location, on the GET and the POST', async () => {
    const unknown = 'mcpclient_00000000000000000000000000000000';
    for (const extra of [{}, { response_type: 'token' }] as Record<string, string>[]) {
      const { url, params } = authRequest(svc, unknown, extra);
      await expectErrorPage(await get(url, 'admin'));
      await expectErrorPage(await fetch(`${svc.url}/mcp/oauth/authorize`, {
        method: 'POST',
        body: params,
        redirect: 'manual',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Remote-User': 'admin', Origin: svc.url },
      }));
    }
    await expectErrorPage(await get(`${svc.url}/mcp/oauth/authorize?redirect_uri=${encodeURIComponent(REDIRECT)}`, 'admin'));
  });

  it('attack (issue 24 item 11): a client registered with an evil landing page cannot use authorize as an open redirect', async () => {
    // Anyone can register https://evil.example/landing; a registered URI proves nothing.
    const landing = 'https://evil.example/landing';
    const evilClient = await newClient(svc, [landing]);
    const bad: Record<string, string>[] = [
      { response_type: 'x' },
      { response_type: 'token' },
      { response_type: '' },
      { code_challenge: '' },
      { code_challenge_method: 'plain' },
      { code_challenge_method: '' },
      { code_challenge: 'short' },
      { scope: 'admin' },
      { scope: 'publish  purge' },
      { scope: 'publish "x"' },
      { resource: 'https://other.example/mcp' },
    ];
    for (const extra of bad) {
      const { url, params } = authRequest(svc, evilClient, { redirect_uri: landing, ...extra });
      for (const user of [undefined, 'admin', 'viewer']) {
        const res = await get(url, user);
        await expectErrorPage(res);
      }
      // The same request posted as a form (no signed field: it never got that far) is a page too.
      const posted = await fetch(`${svc.url}/mcp/oauth/authorize`, {
        method: 'POST',
        body: params,
        redirect: 'manual',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Remote-User': 'admin', Origin: svc.url },
      });
      await expectErrorPage(posted);
    }
    // The page says what is wrong, in the portal's look, and names the OAuth error for developers.
    const page = await (await get(authRequest(svc, evilClient, { redirect_uri: landing, response_type: 'x' }).url, 'admin')).text();
    expect(page).toContain('unsupported_response_type');
    expect(page).toContain('class="topbar"');
    expect(page).not.toMatch(/<a /);
  });

  it('legit: only the answer to the signed-in user\'s own decision goes to the registered URI, with iss', async () => {
    const { hidden } = await consentForm(authRequest(svc, clientId).url);
    const denied = await submitConsent(svc.url, hidden, { decision: 'deny' });
    expect(denied.status).toBe(303);
    const back = new URL(denied.headers.get('location')!);
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
    expect(Object.fromEntries(back.searchParams)).toMatchObject({ error: 'access_denied', state: 'st-7', iss: svc.url });
    // A scope of known capabilities prefills the form; approving sends the code with iss.
    const { html } = await consentForm(authRequest(svc, clientId, { scope: 'rollback unpublish offline_access' }).url);
    expect(html).toMatch(/value="unpublish" checked/);
    expect(html).toMatch(/value="rollback" checked/);
    expect(html).not.toMatch(/value="publish" checked/);
    const approved = await approve(svc.url, authRequest(svc, clientId).url, { kind: 'group', group: 'bots' });
    expect(approved.searchParams.get('code')).toBeTruthy();
    expect(approved.searchParams.get('iss')).toBe(svc.url);
  });

  it('legit: registration, consent and code exchange still work end to end', async () => {
    const { url, verifier } = authRequest(svc, clientId);
    const back = await approve(svc.url, url, { kind: 'group', group: 'bots', caps: ['publish'] });
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
    expect(back.searchParams.get('state')).toBe('st-7');
    const code = back.searchParams.get('code')!;
    const tokens = await tokenRequest(svc.url, { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT, client_id: clientId, resource: `${svc.url}/mcp` });
    expect(tokens.status).toBe(200);
    expect(tokens.body.access_token).toMatch(/^mcpa_/);
  });

  it('the consent page: same-origin referrers, framing refused, no script, and no form-action that would block the 303', async () => {
    const res = await get(authRequest(svc, clientId).url, 'admin');
    expect(res.status).toBe(200);
    expect(res.headers.get('referrer-policy')).toBe('same-origin');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    const csp = res.headers.get('content-security-policy') ?? '';
    const directives = new Map(csp.split(';').map((d) => d.trim().split(/\s+/)).map(([name, ...values]) => [name!, values]));
    expect(directives.get('frame-ancestors')).toEqual(["'none'"]);
    expect(directives.get('script-src')).toEqual(["'none'"]);
    expect(directives.has('form-action')).toBe(false);
    expect(csp).not.toMatch(/\*|'unsafe-inline'[^;]*script|script-src[^;]*'unsafe-inline'/);
  });

  it('legit: behind a proxy on another port or scheme, an Origin naming the apex (or an alias) is accepted', async () => {
    for (const origin of ['https://localhost', 'http://localhost:8443', 'https://alias.test:4443']) {
      const { hidden } = await consentForm(authRequest(svc, clientId).url);
      const form = new URLSearchParams(hidden);
      form.set('decision', 'deny');
      const res = await fetch(`${svc.url}/mcp/oauth/authorize`, {
        method: 'POST',
        body: form,
        redirect: 'manual',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Remote-User': 'admin', Origin: origin, 'Sec-Fetch-Site': 'same-origin' },
      });
      expect(res.status, origin).toBe(303);
      expect(new URL(res.headers.get('location')!).searchParams.get('error')).toBe('access_denied');
    }
  });

  it('attack: a consent form posted from a site page, an opaque origin or another site → 403, no Location', async () => {
    const { hidden } = await consentForm(authRequest(svc, clientId).url);
    const cases: Record<string, string>[] = [
      { Origin: `http://evil.localhost:${svc.port}` },
      { Origin: 'null' },
      { Origin: 'https://evil.example' },
      { Origin: svc.url, 'Sec-Fetch-Site': 'same-site' },
      { 'Sec-Fetch-Site': 'cross-site' },
    ];
    for (const headers of cases) {
      const res = await fetch(`${svc.url}/mcp/oauth/authorize`, {
        method: 'POST',
        body: new URLSearchParams(hidden),
        redirect: 'manual',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Remote-User': 'admin', ...headers },
      });
      expect(res.status, JSON.stringify(headers)).toBe(403);
      expect(res.headers.get('location')).toBeNull();
    }
    // The signed field is still required from the apex itself.
    const forged = new URLSearchParams(hidden);
    forged.set('csrf', `${Date.now()}.forged`);
    const res = await submitConsent(svc.url, forged);
    expect(res.status).toBe(403);
    expect(res.headers.get('location')).toBeNull();
  });
});

describe('OAuth registration: allow-listed redirect URIs, bounded size and rate', () => {
  let svc: RunningService;
  beforeAll(async () => {
    svc = await startService();
  }, 30_000);
  afterAll(async () => {
    await svc?.stop();
  });

  it('attack: a redirect URI with a forbidden scheme → 400 invalid_redirect_uri', async () => {
    const forbidden = [
      'javascript:alert(document.domain)',
      'JavaScript://%0aalert(1)',
      'data:text/html,<script>alert(1)</script>',
      'file:///etc/passwd',
      'blob:https://app.example/0b6a3f0c-7b7e-4c3e-9d1e-1a2b3c4d5e6f',
      'view-source:https://evil.example/',
      'VIEW-SOURCE:https://evil.example/',
      'filesystem:https://app.example/temporary/x',
      'about:blank',
      'vbscript:msgbox(1)',
      'ws://evil.example/',
      'wss://evil.example/',
      'ftp://evil.example/cb',
      'mailto:a@evil.example',
      'intent://evil.example/cb',
      'myapp:/cb',
      'x:',
      'http://evil.example/cb',
      'http://localhost.evil.example/cb',
      'https:evil.example/cb',
      'https:\\\\evil.example/cb',
      'https://app.example@evil.example/cb',
      'https://app.example/cb#frag',
      'https://app.example/c b',
      '\thttps://app.example/cb',
      '/relative/cb',
    ];
    for (const uri of forbidden) {
      const r = await register(svc, { client_name: 'x', redirect_uris: [uri] });
      expect({ uri, status: r.status, error: r.body.error }).toEqual({ uri, status: 400, error: 'invalid_redirect_uri' });
    }
    // One bad URI among good ones spoils the registration.
    expect((await register(svc, { redirect_uris: ['https://app.example/cb', 'view-source:https://app.example/cb'] })).status).toBe(400);
  });

  it('legit: https anywhere, http on loopback hosts and reverse-domain private-use schemes are accepted', async () => {
    const port = 49152 + (process.pid % 1000);
    const allowed = [
      'https://app.example/cb',
      'https://app.example:8443/oauth/callback?tenant=a',
      `http://127.0.0.1:${port}/cb`,
      'http://localhost:3000/callback',
      `http://[::1]:${port}/cb`,
      'com.example.app:/cb',
      'com.example.app://oauth/cb',
      'io.github.some-tool:/oauth2redirect',
    ];
    const r = await register(svc, { client_name: 'Fine', redirect_uris: allowed });
    expect(r.status).toBe(201);
    expect(r.body.redirect_uris).toEqual(allowed);
  });

  it('attack: metadata of 4 KiB + 1 byte → 400 invalid_client_metadata; legit: exactly 4 KiB registers', async () => {
    const sized = (bytes: number) => {
      const base = JSON.stringify({ client_name: 'Padded', redirect_uris: [REDIRECT], software_id: '' });
      return base.replace('"software_id":""', `"software_id":"${'a'.repeat(bytes - base.length)}"`);
    };
    expect(Buffer.byteLength(sized(4097))).toBe(4097);
    const over = await register(svc, sized(4097));
    expect(over).toMatchObject({ status: 400, body: { error: 'invalid_client_metadata' } });
    // Without a Content-Length (chunked), the limit holds while reading.
    const chunked = await fetch(`${svc.url}/mcp/oauth/register`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: new ReadableStream({
        start(c) {
          c.enqueue(new TextEncoder().encode(sized(4097).slice(0, 2000)));
          c.enqueue(new TextEncoder().encode(sized(4097).slice(2000)));
          c.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(400);
    expect(((await chunked.json()) as Json).error).toBe('invalid_client_metadata');
    const exact = await register(svc, sized(4096));
    expect(exact.status).toBe(201);
    // A megabyte is refused just the same (never 413, never read in full).
    const huge = await register(svc, sized(1024 * 1024));
    expect(huge).toMatchObject({ status: 400, body: { error: 'invalid_client_metadata' } });
  });

  it('attack: the 31st registration from one address within the hour → 429 with Retry-After; another address still registers', async () => {
    // The TCP peer (127.0.0.1) is a trusted proxy here, so the address is the right-most X-Forwarded-For entry.
    const flood = { 'X-Forwarded-For': '203.0.113.31' };
    for (let i = 0; i < 30; i++) {
      const r = await register(svc, { client_name: `flood ${i}`, redirect_uris: [REDIRECT] }, flood);
      expect(r.status, `registration ${i + 1}`).toBe(201);
    }
    const refused = await register(svc, { client_name: 'flood 31', redirect_uris: [REDIRECT] }, flood);
    expect(refused.status).toBe(429);
    const retry = Number(refused.headers.get('retry-after'));
    expect(retry).toBeGreaterThan(3500);
    expect(retry).toBeLessThanOrEqual(3600);
    // Naming another client address further left proves nothing: the proxy's own entry counts.
    expect((await register(svc, { redirect_uris: [REDIRECT] }, { 'X-Forwarded-For': '198.51.100.7, 203.0.113.31' })).status).toBe(429);
    // Refused requests did not register anything.
    expect(refused.body.client_id).toBeUndefined();
    // Another address is not affected.
    expect((await register(svc, { client_name: 'neighbour', redirect_uris: [REDIRECT] }, { 'X-Forwarded-For': '203.0.113.32' })).status).toBe(201);
    // Failed registrations do not use up an address's allowance.
    for (let i = 0; i < 40; i++) expect((await register(svc, { redirect_uris: ['data:,x'] }, { 'X-Forwarded-For': '203.0.113.33' })).status).toBe(400);
    expect((await register(svc, { redirect_uris: [REDIRECT] }, { 'X-Forwarded-For': '203.0.113.33' })).status).toBe(201);
  });
});

describe('OAuth registrations never used for a consent expire after 24 hours', () => {
  let svc: RunningService;
  let job: Service;
  beforeAll(async () => {
    svc = await startService({ env: { SITES_MCP_GROUP: 'bots' } });
    // Same data dir, in this process: commands here wait for the running service to project them.
    job = await createService(loadConfig({ ...svc.env }), { project: 'catch-up' });
  }, 30_000);
  afterAll(async () => {
    await job?.close();
    await svc?.stop();
  });

  it('attack: an unused client past 24 h is gone from the read model and authorize treats it as unknown; a client used for a consent is kept', async () => {
    const unused = await newClient(svc);
    const used = await newClient(svc);
    const consent = authRequest(svc, used);
    const back = await approve(svc.url, consent.url, { kind: 'group', group: 'bots' });
    const code = back.searchParams.get('code')!;
    const tokens = await tokenRequest(svc.url, { grant_type: 'authorization_code', code, code_verifier: consent.verifier, redirect_uri: REDIRECT, client_id: used });
    expect(tokens.status).toBe(200);
    const young = await newClient(svc); // registered a little later than `unused`

    const doc = (await job.stack.readModel.getOAuthClient(unused))!;
    const registeredAt = Date.parse(doc.registeredAt);
    expect(Date.parse(doc.unusedExpiresAt!)).toBe(registeredAt + 24 * 3_600_000);
    const youngAt = Date.parse((await job.stack.readModel.getOAuthClient(young))!.registeredAt);
    // Just before its 24 hours are over, nothing happens.
    const before = new Date(registeredAt + 24 * 3_600_000 - 1);
    expect(await expireUnusedClients({ ...job.deps, now: () => before }, before)).not.toContain(unused);
    // A day later (but before `young` is a day old): the unused one goes, the used one stays.
    const later = new Date(Math.min(registeredAt + 24 * 3_600_000 + 1000, youngAt + 24 * 3_600_000 - 1));
    const expired = await expireUnusedClients({ ...job.deps, now: () => later }, later);
    expect(expired).toContain(unused);
    expect(expired).not.toContain(used);
    expect(expired).not.toContain(young);
    expect(await job.stack.readModel.getOAuthClient(unused)).toBeUndefined();
    expect(await job.stack.readModel.getOAuthClient(used)).toMatchObject({ clientId: used, usedAt: expect.any(String) });
    // Running again expires nothing more (the job is idempotent).
    expect(await expireUnusedClients({ ...job.deps, now: () => later }, later)).toEqual([]);

    // The service now treats the expired client as unknown: error page, no redirect; token endpoint: invalid_client.
    for (const extra of [{}, { response_type: 'token' }] as Record<string, string>[]) await expectErrorPage(await get(authRequest(svc, unused, extra).url, 'admin'));
    const token = await tokenRequest(svc.url, { grant_type: 'authorization_code', code: 'mcpc_x', code_verifier: 'v'.repeat(43), redirect_uri: REDIRECT, client_id: unused });
    expect(token).toMatchObject({ status: 401, body: { error: 'invalid_client' } });

    // The used client keeps working: its refresh token rotates, and it can consent again.
    const refreshed = await tokenRequest(svc.url, { grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token as string, client_id: used });
    expect(refreshed.status).toBe(200);
    expect((await get(authRequest(svc, used).url, 'admin')).status).toBe(200);
    expect((await get(authRequest(svc, young).url, 'admin')).status).toBe(200);
  });

  it('a consent form left open past the 24 hours of an unused registration is refused like an unknown client', async () => {
    const client = await newClient(svc);
    const { hidden } = await consentForm(authRequest(svc, client).url);
    const at = Date.parse((await job.stack.readModel.getOAuthClient(client))!.unusedExpiresAt!);
    expect(await expireUnusedClients({ ...job.deps, now: () => new Date(at) }, new Date(at))).toContain(client);
    await expectErrorPage(await submitConsent(svc.url, hidden));
  });
});

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createUpstream, type Upstream } from '../../mcp/diary/upstream/client.ts';
import { CREDENTIALS_REJECTED, httpError, STILL_UNAUTHENTICATED } from '../../mcp/diary/upstream/errors.ts';
import { startSimulator, type DiarySim } from '../support/diary-sim/server.ts';

let sim: DiarySim;
beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(() => sim.close());
beforeEach(() => sim.reset());

const client = (timeoutMs = 2000, password?: string): Upstream => {
  const e = sim.env();
  return createUpstream({ baseUrl: e.DIARY_BASE_URL, authUrl: e.DIARY_AUTH_URL, email: e.DIARY_EMAIL, password: password ?? e.DIARY_PASSWORD, timeoutMs });
};
const USER = { action: 'reading the current user', method: 'GET', path: '/api/account/users/current/user' } as const;
const hops = () => sim.log.map((l) => `${l.host} ${l.method} ${l.path}`);
const credentialPosts = () => sim.log.filter((l) => l.host === 'auth' && l.method === 'POST').length;

describe('login', () => {
  it('is lazy and follows the SSO chain across both hosts', async () => {
    const up = client();
    expect(sim.log).toHaveLength(0);
    expect((await up.call(USER)).status).toBe(200);
    expect(hops()).toEqual([
      'flow GET /login',
      'flow GET /flowSso/login',
      'auth GET /oauth/authorize',
      'auth GET /login',
      'auth POST /login',
      'auth GET /oauth/authorize',
      'flow GET /flowSso/redirect',
      'flow GET /',
      'flow GET /api/account/users/current/user',
    ]);
    const post = sim.log.find((l) => l.host === 'auth' && l.method === 'POST')!;
    expect(post.contentType).toBe('application/x-www-form-urlencoded');
    expect(post.cookieNames).toContain('XSRF-TOKEN');
    const form = new URLSearchParams(post.body);
    expect(form.get('username')).toBe('rider@example.org');
    expect(form.get('remember-me')).toBe('on');
    expect(form.get('_csrf')).toBeTruthy();
    expect(sim.log.find((l) => l.path === '/flowSso/login')!.query).toMatch(/csrfToken=[0-9a-f]+&returnUrl=%2F/);
    // Data calls carry FLOW_SESSION, and the auth cookies stay on their own origin.
    const data = sim.log.at(-1)!;
    expect(data.cookieNames).toContain('FLOW_SESSION');
    expect(data.cookieNames).not.toContain('session_id');
  });

  it('coalesces concurrent logins', async () => {
    const up = client();
    const replies = await Promise.all(Array.from({ length: 5 }, () => up.call(USER)));
    expect(replies.every((r) => r.status === 200)).toBe(true);
    expect(credentialPosts()).toBe(1);
  });

  it('sends X-Requested-With on non-GET requests (the simulator refuses them otherwise)', async () => {
    const up = client();
    const r = await up.call({ action: 'listing sessions', method: 'POST', path: '/api/training/history', body: { userId: 50000001, fromDate: '2026-01-01', toDate: '2026-01-02' } });
    expect(r.status).toBe(200);
    expect(sim.log.at(-1)!.xrw).toBe('XMLHttpRequest');
    const raw = await fetch(`${sim.flowUrl}/api/training/history`, { method: 'POST', body: '{}' });
    expect(raw.status).toBe(403);
    expect(await raw.text()).toContain('Unauthorized');
  });

  it('bad credentials: a clear error naming the variables, no loop', async () => {
    const up = client(2000, 'wrong');
    await expect(up.call(USER)).rejects.toThrow(CREDENTIALS_REJECTED);
    expect(credentialPosts()).toBe(1);
    expect(sim.log.some((l) => l.path === USER.path)).toBe(false);
  });

  it('the sport catalogue needs no session', async () => {
    const r = await client().call({ action: 'reading the sport catalogue', method: 'GET', path: '/api/sports/sports', auth: false });
    expect(JSON.parse(r.text)['1']).toBe('RUNNING');
    expect(hops()).toEqual(['flow GET /api/sports/sports']);
  });
});

describe('session expiry', () => {
  it('refreshes silently through the SSO session and retries exactly once', async () => {
    const up = client();
    await up.call(USER);
    sim.expireSessions();
    sim.log.length = 0;
    expect((await up.call(USER)).status).toBe(200);
    expect(hops()).toEqual([
      'flow GET /api/account/users/current/user',
      'flow GET /flowSso/login',
      'auth GET /oauth/authorize',
      'flow GET /flowSso/redirect',
      'flow GET /',
      'flow GET /api/account/users/current/user',
    ]);
  });

  it('falls back to the full login when the SSO session is gone too', async () => {
    const up = client();
    await up.call(USER);
    sim.expireAll();
    sim.log.length = 0;
    expect((await up.call(USER)).status).toBe(200);
    expect(credentialPosts()).toBe(1);
    expect(sim.log.filter((l) => l.path === USER.path)).toHaveLength(2);
  });

  it('expires after the session TTL on the simulator clock', async () => {
    const up = client();
    const t0 = Date.now();
    sim.setNow(t0);
    await up.call(USER);
    sim.setNow(t0 + 3601_000);
    sim.log.length = 0;
    expect((await up.call(USER)).status).toBe(200);
    expect(sim.log.filter((l) => l.path === USER.path)).toHaveLength(2);
  });

  it('credentials changed meanwhile: authentication error after one attempt', async () => {
    const up = client();
    await up.call(USER);
    sim.expireAll();
    sim.setPassword('rotated');
    await expect(up.call(USER)).rejects.toThrow(/rejected the configured credentials.*DIARY_EMAIL and DIARY_PASSWORD/);
  });

  it('a fresh session rejected again: gives up after one retry', async () => {
    const up = client();
    await up.call(USER);
    sim.always401({ path: USER.path });
    sim.log.length = 0;
    await expect(up.call(USER)).rejects.toThrow(STILL_UNAUTHENTICATED);
    expect(sim.log.filter((l) => l.path === USER.path)).toHaveLength(2);
  });

  it('an ordinary 401 (not NotAuthenticated) is not a re-login reason', async () => {
    const up = client();
    await up.call(USER);
    sim.failWith({ path: USER.path }, 401, '{"error":"Forbidden"}', 'application/json');
    sim.log.length = 0;
    expect((await up.call(USER)).status).toBe(401);
    expect(hops()).toEqual(['flow GET /api/account/users/current/user']);
  });
});

describe('failures', () => {
  it('5xx comes back with its status for the caller to word', async () => {
    const up = client();
    sim.failWith({ path: USER.path }, 502, '  Bad\n\n gateway  ');
    const r = await up.call(USER);
    expect(r.status).toBe(502);
    expect(httpError('reading the current user', r.status, r.text).message).toBe('reading the current user failed: upstream HTTP 502: Bad gateway');
    expect(httpError('x', 500, '').message).toBe('x failed: upstream HTTP 500 (empty body)');
    expect(httpError('x', 500, 'y'.repeat(400)).message.length).toBe('x failed: upstream HTTP 500: '.length + 300);
  });

  it('a dropped connection names the action and the cause', async () => {
    const up = client();
    await up.call(USER);
    sim.dropConnection({ path: USER.path });
    await expect(up.call(USER)).rejects.toThrow(/^reading the current user failed: .*(socket|closed|reset|hang up)/i);
  });

  it('a slow reply times out', async () => {
    const up = client(150);
    await up.call(USER);
    sim.delay({ path: USER.path }, 1000);
    const started = Date.now();
    await expect(up.call(USER)).rejects.toThrow('reading the current user failed: timed out after 150 ms');
    expect(Date.now() - started).toBeLessThan(900);
  });

  it('a login hop that hangs times out too', async () => {
    const up = client(150);
    sim.delay({ host: 'auth', method: 'POST', path: '/login' }, 1000);
    await expect(up.call(USER)).rejects.toThrow('Diary login failed: timed out after 150 ms');
  });

  it('a 5xx during login is reported as a login failure with the status', async () => {
    sim.failWith({ path: '/login', method: 'GET' }, 503, 'maintenance');
    await expect(client().call(USER)).rejects.toThrow('Diary login failed: upstream HTTP 503: maintenance');
  });
});

/**
 * The pieces of the OAuth hardening that need a clock or a peer address the HTTP tests
 * cannot fake: the registration limiter (injected clock), the peer address behind trusted
 * proxies, the apex-origin rule, and the authorization check's 24-hour rule before the
 * expiry job has run.
 */
import type { Context } from 'koa';
import { describe, expect, it } from 'vitest';
import type { ApiContext } from '../../api/context.ts';
import { parseCidr } from '../../host/config.ts';
import { startOAuthClientExpiryJob } from '../../host/oauth-client-job.ts';
import type { Service } from '../../host/service.ts';
import { peerAddress } from '../../api/peer-address.ts';
import { isApexOrigin } from '../../mcp/sites/http.ts';
import { checkAuthorizeRequest as checkWith, readParams, registeredClients, type AuthorizeParams } from '../../mcp/sites/oauth/authorize-request.ts';
import { createRateLimiter, limiterKey } from '../../mcp/sites/oauth/rate-limit.ts';
import { checkRedirectUri, matchRedirectUri } from '../../mcp/sites/oauth/redirect-uris.ts';
import type { OAuthClientDoc } from '../../projections/documents.ts';

const HOUR = 3_600_000;

describe('registration limiter (injected clock)', () => {
  const limiter = (maxPeers = 100) => {
    let now = 1_000_000;
    const l = createRateLimiter({ max: 30, windowMs: HOUR, maxPeers, now: () => now });
    return { l, advance: (ms: number) => (now += ms) };
  };

  it('admits 30 per peer in any hour, then says when to retry; the window slides', () => {
    const { l, advance } = limiter();
    for (let i = 0; i < 30; i++) {
      expect(l.admit('a').ok).toBe(true);
      advance(60_000); // one a minute: the 30th comes at minute 29
    }
    const refused = l.admit('a');
    expect(refused).toEqual({ ok: false, retryAfterSeconds: 30 * 60 }); // the first one leaves the window at minute 60
    expect(l.admit('b').ok).toBe(true);
    advance(30 * 60_000 - 1);
    expect(l.admit('a').ok).toBe(false);
    advance(1);
    expect(l.admit('a').ok).toBe(true); // exactly one slot came free
    expect(l.admit('a').ok).toBe(false);
  });

  it('a released admission does not count', () => {
    const { l } = limiter();
    for (let i = 0; i < 100; i++) {
      const a = l.admit('a');
      expect(a.ok).toBe(true);
      if (a.ok) a.release();
    }
    for (let i = 0; i < 30; i++) expect(l.admit('a').ok).toBe(true);
    expect(l.admit('a').ok).toBe(false);
  });

  it('keeps its memory bounded: peers whose hour is over are dropped, and never more than maxPeers are tracked', () => {
    const { l, advance } = limiter(50);
    for (let i = 0; i < 40; i++) l.admit(`p${i}`);
    expect(l.size).toBe(40);
    advance(HOUR);
    l.admit('late');
    expect(l.size).toBe(1); // the 40 peers' hour is over
    for (let i = 0; i < 500; i++) l.admit(`q${i}`);
    expect(l.size).toBe(50);
  });

  it('counts an IPv4 address (also IPv4-mapped) as itself and an IPv6 address by its /64', () => {
    expect(limiterKey('203.0.113.5')).toBe('203.0.113.5');
    expect(limiterKey('::ffff:203.0.113.5')).toBe('203.0.113.5');
    expect(limiterKey('2001:db8:1:2::1')).toBe(limiterKey('2001:db8:1:2:ffff::9'));
    expect(limiterKey('2001:db8:1:2::1')).not.toBe(limiterKey('2001:db8:1:3::1'));
  });
});

const api = (extra: Partial<{ trusted: string[]; base: string; aliases: string[] }> = {}) =>
  ({
    config: {
      trustedProxies: (extra.trusted ?? ['127.0.0.1', '::1']).map((c) => parseCidr(c, 'test')),
      baseDomain: extra.base ?? 'sites.example',
      aliasDomains: extra.aliases ?? ['other.example'],
    },
  }) as unknown as Pick<ApiContext, 'config'>;

const ctx = (remoteAddress: string, xff?: string) =>
  ({ req: { socket: { remoteAddress } }, get: (name: string) => (name.toLowerCase() === 'x-forwarded-for' ? (xff ?? '') : '') }) as unknown as Context;

describe('peer address', () => {
  it('is the TCP peer unless that peer is a trusted proxy', () => {
    expect(peerAddress(api(), ctx('198.51.100.1', '203.0.113.9'))).toBe('198.51.100.1');
    expect(peerAddress(api({ trusted: ['10.0.0.0/8'] }), ctx('127.0.0.1', '203.0.113.9'))).toBe('127.0.0.1');
  });

  it('behind a trusted proxy, is the right-most X-Forwarded-For entry (the one the proxy wrote)', () => {
    expect(peerAddress(api(), ctx('127.0.0.1', '203.0.113.9'))).toBe('203.0.113.9');
    expect(peerAddress(api(), ctx('::ffff:127.0.0.1', '6.6.6.6, 203.0.113.9'))).toBe('203.0.113.9');
    expect(peerAddress(api(), ctx('::1', '203.0.113.9, [2001:db8::7]:443'))).toBe('2001:db8::7');
    expect(peerAddress(api(), ctx('127.0.0.1', '203.0.113.9:5151'))).toBe('203.0.113.9');
    // No header, or one the proxy did not fill with an address: the proxy itself.
    expect(peerAddress(api(), ctx('127.0.0.1'))).toBe('127.0.0.1');
    expect(peerAddress(api(), ctx('127.0.0.1', '203.0.113.9, unknown'))).toBe('127.0.0.1');
  });
});

describe('apex origin', () => {
  it('names the base domain or an alias, any scheme and port', () => {
    for (const o of ['https://sites.example', 'http://sites.example:8080', 'https://SITES.example:8443', 'https://other.example']) expect(isApexOrigin(api(), o), o).toBe(true);
  });
  it('never a site host, another domain, an opaque origin or another scheme', () => {
    for (const o of ['https://app.docs.sites.example', 'https://sites.example.evil.test', 'null', '', 'file://sites.example', 'https://evilsites.example']) {
      expect(isApexOrigin(api(), o), o).toBe(false);
    }
  });
});

describe('redirect URI allow-list', () => {
  it('takes https, loopback http and reverse-domain private-use schemes only', () => {
    for (const ok of ['https://a.example/cb', 'http://localhost/cb', 'http://127.0.0.1:1234/cb', 'http://[::1]/cb', 'com.example.app:/cb', 'org.example.tool://cb']) {
      expect(checkRedirectUri(ok), ok).toBeUndefined();
    }
    for (const bad of ['view-source:https://a.example/', 'filesystem:https://a.example/t/', 'javascript:alert(1)', 'data:,x', 'file:///x', 'blob:https://a.example/x', 'about:blank', 'myapp:/cb', 'http://a.example/cb', 'https:a.example', 'https://u:p@a.example/', 'https://a.example/#x', 42, '']) {
      expect(checkRedirectUri(bad)?.error, String(bad)).toBe('invalid_redirect_uri');
    }
  });
});

describe('redirect URI matching', () => {
  it('is exact, except the port of an http loopback URI (RFC 8252 §7.3), which keeps host, path and query', () => {
    const registered = ['http://127.0.0.1/callback', 'http://localhost:3000/cb?x=1', 'http://[::1]/cb', 'https://agent.example/cb', 'com.example.app:/cb'];
    expect(matchRedirectUri(registered, 'https://agent.example/cb')).toBe('https://agent.example/cb');
    for (const ok of ['http://127.0.0.1:53123/callback', 'http://127.0.0.1/callback', 'http://localhost:4000/cb?x=1', 'http://[::1]:9/cb']) expect(matchRedirectUri(registered, ok), ok).toBe(ok);
    for (const bad of [
      'http://127.0.0.1:53123/callback/', 'http://127.0.0.1:53123/other', 'http://127.0.0.1:53123/callback?x=1', 'http://127.0.0.2:53123/callback',
      'http://localhost:53123/callback', 'https://127.0.0.1:53123/callback', 'https://agent.example:8443/cb', 'http://agent.example/cb',
      'http://evil@127.0.0.1:5/callback', 'http://127.0.0.1:5/callback#x', 'http://127.0.0.1:080/callback', 'com.example.app:/cb2', '',
    ]) {
      expect(matchRedirectUri(registered, bad), bad).toBeUndefined();
    }
  });
});

describe('authorization request check (injected clock)', () => {
  const T0 = Date.parse('2026-05-01T08:00:00.000Z');
  const client = (extra: Partial<OAuthClientDoc> = {}): OAuthClientDoc => ({
    clientId: 'c1',
    name: 'Agent',
    redirectUris: ['https://agent.example/cb', 'view-source:https://agent.example/old'],
    registeredAt: new Date(T0).toISOString(),
    unusedExpiresAt: new Date(T0 + 24 * HOUR).toISOString(),
    ...extra,
  });
  const used = (): OAuthClientDoc => {
    const { unusedExpiresAt: _lifted, ...rest } = client({ usedAt: new Date(T0 + HOUR).toISOString() });
    return rest;
  };
  const fake = (doc: OAuthClientDoc, now: number) =>
    ({
      deps: { readModel: { getOAuthClient: async (id: string) => (id === doc.clientId ? doc : undefined) }, now: () => new Date(now) },
      apexOrigin: () => 'https://sites.example',
    }) as unknown as ApiContext;
  const checkAuthorizeRequest = (api: ApiContext, p: AuthorizeParams) => checkWith(api, p, registeredClients(api));
  const request = (redirect = 'https://agent.example/cb') => {
    const read = readParams(new URLSearchParams({ client_id: 'c1', redirect_uri: redirect, response_type: 'code', code_challenge: 'a'.repeat(43), code_challenge_method: 'S256' }));
    if (!read.ok) throw new Error(read.message);
    return read.params;
  };

  it('an unused client is unknown from its 24th hour on, even before the expiry job ran', async () => {
    expect((await checkAuthorizeRequest(fake(client(), T0 + 24 * HOUR - 1), request())).kind).toBe('ok');
    expect(await checkAuthorizeRequest(fake(client(), T0 + 24 * HOUR), request())).toMatchObject({ kind: 'page', status: 400 });
  });

  it('a client used for a consent is kept', async () => {
    expect((await checkAuthorizeRequest(fake(used(), T0 + 400 * 24 * HOUR), request())).kind).toBe('ok');
  });

  it('a registered redirect URI outside the allow-list (registered before it existed) is never a target', async () => {
    expect(await checkAuthorizeRequest(fake(client(), T0), request('view-source:https://agent.example/old'))).toMatchObject({ kind: 'page' });
  });

  it('the answer goes to the registered string, and a repeated parameter is refused', async () => {
    const checked = await checkAuthorizeRequest(fake(client(), T0), request());
    expect(checked.kind === 'ok' && checked.target).toEqual({ redirectUri: 'https://agent.example/cb', state: '' });
    expect(readParams(new URLSearchParams('client_id=c1&redirect_uri=a&redirect_uri=b'))).toMatchObject({ ok: false });
  });
});

describe('expiry job', () => {
  it('asks for expired registrations as of the service clock, on the projector leader only', async () => {
    const asked: string[] = [];
    const now = new Date('2026-06-01T00:00:00.000Z');
    const service = (isLeader: boolean) =>
      ({
        projector: { isLeader },
        deps: { now: () => now, readModel: { listExpiredUnusedOAuthClients: async (by: string) => (asked.push(by), []) } },
        log: { info: () => undefined, error: () => undefined },
      }) as unknown as Service;
    const follower = startOAuthClientExpiryJob(service(false), 60_000);
    const leader = startOAuthClientExpiryJob(service(true), 60_000);
    await new Promise((r) => setTimeout(r, 20));
    follower();
    leader();
    expect(asked).toEqual([now.toISOString()]);
  });
});

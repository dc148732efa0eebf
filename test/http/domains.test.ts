/**
 * Custom domains on the real service (spec §15): the routes, serving a request whose Host is
 * a custom domain as its site's host (publisher content: never the apex), the TLS ask, and
 * unpublish / restore / purge.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../support/http.ts';
import { publish } from '../support/publish.ts';
import { startService, type RunningService } from '../support/service.ts';

const BASE = 'sites.test';
let svc: RunningService;
let admin: string;

type Answer = { status: number; text: string; headers: Record<string, string | string[] | undefined> };

/** A request with a Host header of our choosing, from 127.0.0.1. */
function send(method: string, path: string, host: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: svc.port, method, path, headers: { Host: host, ...headers } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}
const get = (host: string, path = '/', headers: Record<string, string> = {}) => send('GET', path, host, headers);
const ask = async (domain: string) => (await get(`127.0.0.1:${svc.port}`, `/tls/ask?domain=${encodeURIComponent(domain)}`)).status;
const put = (site: string, domain: string, opts: Parameters<typeof call>[3] = { key: admin }) => call(svc.url, 'PUT', `/api/sites/${site}/domains/${domain}`, opts);
const del = (site: string, domain: string, opts: Parameters<typeof call>[3] = { key: admin }) => call(svc.url, 'DELETE', `/api/sites/${site}/domains/${domain}`, opts);

beforeAll(async () => {
  svc = await startService({ env: { SITES_BASE_DOMAIN: BASE, SITES_ALIAS_DOMAINS: 'alias.test', SITES_CONTROL_DOMAIN: 'control.test', SITES_ADMIN_USERS: 'admin' } });
  admin = await svc.createKey(['--name', 'admin', '--admin']);
  const files = {
    'index.html': '<h1>docs app</h1>',
    'guide/index.html': '<p>guide</p>',
    'api/sites': 'a file of the site, not the API',
    'tls/ask': 'a file of the site, not the TLS ask',
    _redirects: '/old /guide/ 301\n',
    _headers: '/*\n  X-Site-Rule: yes\n',
  };
  for (const [group, slug, f] of [['docs', 'app', files], ['', 'blog', { 'index.html': '<h1>blog</h1>' }]] as const) {
    expect((await publish(svc.url, admin, { group, slug, title: slug }, { files: f })).status).toBe(200);
  }
});
afterAll(() => svc?.stop());

describe('PUT and DELETE /api/sites/{path}/domains/{domain}', () => {
  it('authorization before lookup: 401 without credentials, 403 for non-admins whether or not the site exists', async () => {
    const scoped = await svc.createKey(['--name', 'scoped', '--grant', 'docs:publish,unpublish,patch,rollback,purge']);
    for (const site of ['docs/app', 'docs/missing']) {
      expect((await put(site, 'docs.acme.test', {})).status, site).toBe(401);
      for (const opts of [{ key: scoped }, { user: 'someone' }]) {
        const r = await put(site, 'docs.acme.test', opts);
        expect(r.status, site).toBe(403);
        expect(r.body).toEqual({ error: 'this needs an admin', code: 'forbidden' });
        expect((await del(site, 'docs.acme.test', opts)).status, site).toBe(403);
      }
    }
  });

  it('attaches (200 Site with domains), lists it on the site, refuses bad names (400) and another site (409), detaches (204)', async () => {
    const r = await put('docs/app', 'docs.acme.test');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ group: 'docs', slug: 'app', domains: ['docs.acme.test'] });
    expect((await call(svc.url, 'GET', '/api/sites/docs/app', { key: admin })).body.domains).toEqual(['docs.acme.test']);
    expect((await call(svc.url, 'GET', '/api/sites/blog', { key: admin })).body.domains).toEqual([]);
    expect((await put('docs/app', 'docs.acme.test')).status).toBe(200);

    for (const bad of ['Docs.Acme.test', 'docs.acme.test.', 'acme', `x.${BASE}`, BASE, 'control.test', 'a.alias.test', '127.0.0.1', '*.acme.test']) {
      const refused = await put('blog', encodeURIComponent(bad));
      expect(refused.status, bad).toBe(400);
      expect(refused.body.code, bad).toBe('invalid');
    }
    const taken = await put('blog', 'docs.acme.test');
    expect(taken.status).toBe(409);
    expect(taken.body).toEqual({ error: 'docs.acme.test is attached to docs/app', code: 'conflict' });
    expect((await put('docs/missing', 'other.acme.test')).status).toBe(404);

    expect((await del('blog', 'docs.acme.test')).status).toBe(404);
    expect((await put('blog', 'www.blog.test')).status).toBe(200);
    expect((await del('blog', 'www.blog.test')).status).toBe(204);
    expect((await call(svc.url, 'GET', '/api/sites/blog', { key: admin })).body.domains).toEqual([]);
    const events = (await call(svc.url, 'GET', '/api/sites/blog/events', { key: admin })).body.events;
    expect(events.map((e: { type: string }) => e.type).slice(-2)).toEqual(['DomainAttached', 'DomainDetached']);
    expect(events.at(-1)).toMatchObject({ data: { domain: 'www.blog.test' }, actor: { kind: 'key' } });
    // The Activity log tells the attach and detach, not the claims behind them (bookkeeping).
    const activity = (await call(svc.url, 'GET', '/api/events?limit=500', { key: admin })).body.events;
    const types = activity.map((e: { type: string }) => e.type);
    expect(types).toContain('DomainAttached');
    expect(activity.find((e: { type: string }) => e.type === 'DomainDetached')).toMatchObject({ site: 'blog', data: { domain: 'www.blog.test' } });
    expect(types).not.toContain('DomainClaimed');
    expect(types).not.toContain('DomainReleased');
  });

  it('a signed-in admin attaches from the portal, but not from another origin (the cross-origin guard, spec §2)', async () => {
    const from = (origin: string) => fetch(`${svc.url}/api/sites/blog/domains/portal.blog.test`, { method: 'PUT', headers: { 'Remote-User': 'admin', Origin: origin, 'Sec-Fetch-Site': 'same-site' } });
    expect((await from('http://docs.acme.test')).status).toBe(403);
    const ok = await fetch(`${svc.url}/api/sites/blog/domains/portal.blog.test`, { method: 'PUT', headers: { 'Remote-User': 'admin', 'Sec-Fetch-Site': 'same-origin' } });
    expect(ok.status).toBe(200);
    expect((await del('blog', 'portal.blog.test')).status).toBe(204);
  });

  it('DELETE …/domains/<no dot> is still the unpublish of a site at that path, never a detach', async () => {
    const r = await call(svc.url, 'DELETE', '/api/sites/docs/domains/x', { key: admin });
    expect(r.status).toBe(404);
    expect(r.body.error).toContain('docs/domains/x');
  });
});

describe('serving a custom domain (spec §15: the site\'s host, with its isolation)', () => {
  beforeAll(async () => {
    expect((await put('docs/app', 'docs.acme.test')).status).toBe(200);
  });

  it('serves the site with its own rules: pages, directories, _redirects and _headers', async () => {
    const home = await get('docs.acme.test');
    expect(home.status).toBe(200);
    expect(home.text).toBe('<h1>docs app</h1>');
    expect(home.headers['x-site-rule']).toBe('yes');
    expect((await get('docs.acme.test:8443', '/guide/')).text).toBe('<p>guide</p>');
    const moved = await get('docs.acme.test', '/old');
    expect(moved.status).toBe(301);
    expect(moved.headers.location).toBe('/guide/');
    expect((await get('DOCS.ACME.TEST', '/')).status).toBe(200);
    // Its own /tls/ask is its file, not the proxy's question (which other names under no apex still reach).
    expect((await get('docs.acme.test', '/tls/ask?domain=docs.acme.test')).text).toBe('a file of the site, not the TLS ask');
    expect((await get(`sites-1:${svc.port}`, '/tls/ask?domain=docs.acme.test')).status).toBe(200);
  });

  it('attack: the custom host is publisher content, never the apex: no API, no portal, no identity, no writes', async () => {
    const api = await get('docs.acme.test', '/api/sites', { 'Remote-User': 'admin', Authorization: `Bearer ${admin}` });
    expect(api.text).toBe('a file of the site, not the API');
    for (const path of ['/api/me', '/ingest/sites', '/mcp', '/healthz', '/api/openapi.json']) {
      const r = await get('docs.acme.test', path, { 'Remote-User': 'admin' });
      expect(r.status, path).toBe(404);
      expect(r.text, path).not.toContain('base_domain');
    }
    for (const method of ['PUT', 'DELETE', 'POST']) {
      expect((await send(method, '/api/sites/docs/app/domains/evil.test', 'docs.acme.test', { 'Remote-User': 'admin', Authorization: `Bearer ${admin}` })).status, method).toBe(405);
    }
    expect((await call(svc.url, 'GET', '/api/sites/docs/app', { key: admin })).body.domains).toEqual(['docs.acme.test']);
  });

  it('a name attached to no site answers 404, as an unknown host', async () => {
    expect((await get('other.acme.test')).status).toBe(404);
    expect((await get('acme.test')).status).toBe(404);
  });

  it('the TLS ask says yes only for a live site\'s domain', async () => {
    expect(await ask('docs.acme.test')).toBe(200);
    expect(await ask('other.acme.test')).toBe(404);
  });

  it('unpublish: 404 and no certificate; restore: back; detach: gone at once', async () => {
    expect((await call(svc.url, 'DELETE', '/api/sites/docs/app', { key: admin })).status).toBe(204);
    expect((await get('docs.acme.test')).status).toBe(404);
    expect(await ask('docs.acme.test')).toBe(404);
    // Still the site's while it is in the trash.
    expect((await put('blog', 'docs.acme.test')).status).toBe(409);
    expect((await call(svc.url, 'POST', '/api/sites/deleted/docs/app', { key: admin })).body.domains).toEqual(['docs.acme.test']);
    expect((await get('docs.acme.test')).text).toBe('<h1>docs app</h1>');
    expect(await ask('docs.acme.test')).toBe(200);
    expect((await del('docs/app', 'docs.acme.test')).status).toBe(204);
    expect((await get('docs.acme.test')).status).toBe(404);
    expect(await ask('docs.acme.test')).toBe(404);
  });

  it('purge detaches: the domain stops answering and another site may take it', async () => {
    expect((await put('docs/app', 'purged.acme.test')).status).toBe(200);
    expect((await call(svc.url, 'DELETE', '/api/sites/docs/app', { key: admin })).status).toBe(204);
    expect((await call(svc.url, 'DELETE', '/api/sites/deleted/docs/app', { key: admin })).status).toBe(204);
    expect((await get('purged.acme.test')).status).toBe(404);
    expect((await put('blog', 'purged.acme.test')).status).toBe(200);
    expect((await get('purged.acme.test')).text).toBe('<h1>blog</h1>');
  });
});

describe('a control domain of its own keeps custom domains out of its zone', () => {
  let own: RunningService;
  beforeAll(async () => {
    own = await startService({ env: { SITES_BASE_DOMAIN: BASE, SITES_CONTROL_DOMAIN: 'portal.corp.test', SITES_ADMIN_USERS: 'admin' } });
  });
  afterAll(() => own?.stop());

  it('attack: an admin cannot attach a name same-site with the portal (its sites could set cookies the portal receives)', async () => {
    const key = await own.createKey(['--name', 'admin', '--admin']);
    expect((await publish(own.url, key, { group: '', slug: 'evil', title: 'evil' }, { index: '<p>evil</p>' })).status).toBe(200);
    for (const domain of ['corp.test', 'x.corp.test']) {
      const res = await call(own.url, 'PUT', `/api/sites/evil/domains/${domain}`, { key });
      expect(res, domain).toMatchObject({ status: 400, body: { code: 'invalid' } });
      expect(res.body.error, domain).toMatch(/same-site with the portal/);
    }
    expect((await call(own.url, 'PUT', '/api/sites/evil/domains/docs.acme.test', { key })).status).toBe(200);
  });
});

/**
 * `GET /tls/ask?domain=` (spec §15) on the real service: what a TLS proxy may obtain a
 * certificate for, who may ask, and that the answer follows the sites' lifecycle at once.
 */
import { rename } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../support/http.ts';
import { publish } from '../support/publish.ts';
import { startService, type RunningService } from '../support/service.ts';

const BASE = 'sites.test';
let svc: RunningService;
let admin: string;

/** GET with a Host header of our choosing, from 127.0.0.1 (a trusted proxy unless configured otherwise). */
function get(port: number, path: string, host: string, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers: { Host: host, ...headers } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c));
      res.on('end', () => {
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          /* not JSON */
        }
        resolve({ status: res.statusCode ?? 0, body });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** What Caddy does: GET <ask>?domain=<name> on the listen address. */
const ask = (domain: string, target = svc) => get(target.port, `/tls/ask?domain=${encodeURIComponent(domain)}`, `127.0.0.1:${target.port}`);
const status = async (domain: string) => (await ask(domain)).status;

const site = (group: string, slug: string, extra: Record<string, unknown> = {}) =>
  publish(svc.url, admin, { group, slug, title: slug, ...extra }, { index: `<h1>${slug}</h1>` }).then((r) => expect(r.status, `${group}/${slug}`).toBe(200));

beforeAll(async () => {
  svc = await startService({ env: { SITES_BASE_DOMAIN: BASE, SITES_ALIAS_DOMAINS: 'alias.test', SITES_CONTROL_DOMAIN: 'control.test' } });
  admin = await svc.createKey(['--name', 'admin', '--admin']);
  await site('', 'demo');
  await site('docs', 'app');
  await site('grp/sub', 'a');
  await site('', 'unlisted', { hidden: true });
});
afterAll(() => svc?.stop());

describe('GET /tls/ask', () => {
  it('200 for the apex, an alias, the control domain and the host of a live site at every depth', async () => {
    for (const domain of [BASE, 'alias.test', 'control.test', `demo.${BASE}`, `app.docs.${BASE}`, `a.sub.grp.${BASE}`, 'a.sub.grp.alias.test', `unlisted.${BASE}`, `App.Docs.${BASE.toUpperCase()}`]) {
      const r = await ask(domain);
      expect(r.status, domain).toBe(200);
    }
  });

  it('404 in the error shape for names that serve nothing: unknown, over-deep, a bare group, elsewhere', async () => {
    const r = await ask(`nothing.${BASE}`);
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ code: 'not_found' });
    expect(r.body.error).toContain(`nothing.${BASE}`);
    for (const domain of [`nothing.docs.${BASE}`, `docs.${BASE}`, `grp.${BASE}`, `x.a.sub.grp.${BASE}`, `a.b.c.d.${BASE}`, `app.docs.other.test`, `x${BASE}`, 'example.com']) {
      expect(await status(domain), domain).toBe(404);
    }
  });

  it('404 for what is not a certificate name: malformed, with a port, a wildcard, IP literals, the listen names', async () => {
    const malformed = ['', ' ', '.', `.${BASE}`, `demo..${BASE}`, `demo.${BASE}.`, `demo.${BASE}:443`, `*.${BASE}`, `de_mo.${BASE}`, `-demo.${BASE}`, `demo-.${BASE}`, `dëmo.${BASE}`, `demo.${BASE}/x`, `${'a'.repeat(64)}.${BASE}`, `${'a.'.repeat(130)}${BASE}`];
    const literals = ['127.0.0.1', '[::1]', '::1', '10.0.0.1', `1.2.3.4.${BASE}.5`, '127.1', 'localhost'];
    for (const domain of [...malformed, ...literals]) expect(await status(domain), JSON.stringify(domain)).toBe(404);
    // No domain, or two of them: nothing to certify.
    expect((await get(svc.port, '/tls/ask', `127.0.0.1:${svc.port}`)).status).toBe(404);
    expect((await get(svc.port, `/tls/ask?domain=${BASE}&domain=demo.${BASE}`, `127.0.0.1:${svc.port}`)).status).toBe(404);
  });

  it('404 for hosts under a control domain of its own: the portal\'s neighbours are nobody\'s site', async () => {
    // The service would read demo.control.test as the flat site demo; no certificate makes it reachable over HTTPS.
    for (const domain of ['demo.control.test', 'app.docs.control.test', 'nothing.control.test']) expect(await status(domain), domain).toBe(404);
  });

  it('follows the lifecycle as soon as each command returns: unpublished, restored, purged, re-created', async () => {
    await site('life', 'cycle');
    const host = `cycle.life.${BASE}`;
    expect(await status(host)).toBe(200);
    expect((await call(svc.url, 'DELETE', '/ingest/sites/life/cycle', { key: admin })).status).toBe(204);
    expect(await status(host)).toBe(404);
    expect((await call(svc.url, 'POST', '/ingest/sites/life/cycle/restore', { key: admin })).status).toBe(200);
    expect(await status(host)).toBe(200);
    expect((await call(svc.url, 'DELETE', '/ingest/sites/life/cycle', { key: admin })).status).toBe(204);
    expect((await call(svc.url, 'POST', '/ingest/sites/life/cycle/purge', { key: admin })).status).toBe(204);
    expect(await status(host)).toBe(404);
    await site('life', 'cycle');
    expect(await status(host)).toBe(200);
  });

  it('is answered on the apex by any of its names and on names the service does not know, never on a site host', async () => {
    const path = `/tls/ask?domain=demo.${BASE}`;
    // A proxy in a container network or a cluster calls the service by a name of that network.
    for (const host of [BASE, 'control.test', `localhost:${svc.port}`, `127.0.0.1:${svc.port}`, 'sites-1:8080', 'sites.default.svc.cluster.local']) {
      expect((await get(svc.port, path, host)).status, host).toBe(200);
    }
    // Only the ask: any other path on such a name stays an unknown host.
    expect(await get(svc.port, '/healthz', 'sites-1:8080')).toMatchObject({ status: 404, body: 'unknown host\n' });
    // On a site host the path is the site's own: its files (none here), never the question.
    const onSite = await get(svc.port, path, `demo.${BASE}`);
    expect(onSite.status).toBe(404);
    expect(onSite.body).not.toMatchObject({ ok: true });
  });

  it('reads the read model only: answers with every stored file gone', async () => {
    const blobs = join(svc.dataDir, 'blobs');
    await rename(blobs, `${blobs}-away`);
    try {
      expect(await status(`a.sub.grp.${BASE}`)).toBe(200);
      expect(await status(`nothing.${BASE}`)).toBe(404);
    } finally {
      await rename(`${blobs}-away`, blobs);
    }
  });
});

describe('GET /tls/ask relayed by a proxy for someone else', () => {
  it('answers 404 like a missing endpoint: the client of a proxy is not the proxy', async () => {
    const missing = await get(svc.port, '/api/no-such-endpoint', `127.0.0.1:${svc.port}`);
    for (const header of [
      { 'X-Forwarded-For': '203.0.113.7' },
      { Forwarded: 'for=203.0.113.7' },
      { Via: '1.1 caddy' },
      // nginx's usual `proxy_set_header`s, and what CDNs add for their client.
      { 'X-Real-IP': '203.0.113.7' },
      { 'True-Client-IP': '203.0.113.7' },
      { 'CF-Connecting-IP': '203.0.113.7' },
      { 'X-Forwarded-Host': BASE },
      { 'X-Forwarded-Proto': 'https' },
    ] as Record<string, string>[]) {
      const r = await get(svc.port, `/tls/ask?domain=${BASE}`, BASE, header);
      expect(r, JSON.stringify(header)).toEqual({ status: 404, body: missing.body });
    }
  });
});

describe('GET /tls/ask from a peer that is not a trusted proxy', () => {
  let closed: RunningService;
  afterAll(() => closed?.stop());

  it('answers 404 whatever the name, exactly like an endpoint that does not exist', async () => {
    closed = await startService({ env: { SITES_BASE_DOMAIN: BASE, SITES_TRUSTED_PROXIES: '192.0.2.1' } });
    const apex = await ask(BASE, closed);
    const missing = await get(closed.port, '/api/no-such-endpoint', `127.0.0.1:${closed.port}`);
    expect(apex.status).toBe(404);
    expect(apex.body).toEqual(missing.body);
    expect((await ask(`demo.${BASE}`, closed)).body).toEqual(missing.body);
  });
});

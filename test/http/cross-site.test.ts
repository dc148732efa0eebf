/**
 * Spec §2 "Published content never acts on the control plane", at the HTTP level: each
 * attack is sent with the headers a browser sends from a published page (same-site, its
 * own Origin) plus the identity the sign-in proxy adds; next to it, the legitimate request.
 * The real-browser versions of the same attacks are in test/browser/attacks.test.ts.
 */
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publish } from '../support/publish.ts';
import { startService, type RunningService } from '../support/service.ts';

let svc: RunningService;
let admin: string;
let attacker: Record<string, string>;
const INERT = "default-src 'none'; style-src 'unsafe-inline'; sandbox";

/** A request as the signed-in admin's browser sends it, from the apex (the portal) or from a site page. */
async function asAdmin(method: string, path: string, from: Record<string, string>, body?: BodyInit, type?: string) {
  const headers: Record<string, string> = { 'Remote-User': 'admin', ...from };
  if (type) headers['Content-Type'] = type;
  const res = await fetch(new URL(path, svc.url), { method, headers, body });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

async function keyNames(): Promise<string[]> {
  const res = await fetch(new URL('/api/keys', svc.url), { headers: { Authorization: `Bearer ${admin}` } });
  return ((await res.json()) as { keys: { name: string }[] }).keys.map((k) => k.name);
}

async function liveTitle(path: string): Promise<string | number> {
  const res = await fetch(new URL(`/api/sites/${path}`, svc.url), { headers: { Authorization: `Bearer ${admin}` } });
  return res.ok ? ((await res.json()) as { title: string }).title : res.status;
}

function portalForm(meta: object): FormData {
  const form = new FormData();
  form.append('meta', JSON.stringify(meta));
  form.append('index', new Blob(['<p>defaced</p>'], { type: 'text/html' }), 'index.html');
  return form;
}

beforeAll(async () => {
  svc = await startService();
  admin = await svc.createKey(['--name', 'admin', '--admin']);
  const portal = { 'Sec-Fetch-Site': 'same-origin', Origin: svc.url };
  attacker = { 'Sec-Fetch-Site': 'same-site', Origin: `http://evil.docs.localhost:${svc.port}` };
  expect(portal).toBeTruthy();
  for (const [slug, title] of [
    ['victim', 'Victim v1'],
    ['victim', 'Victim v2'],
    ['trashed', 'Trashed'],
  ] as const) {
    expect((await publish(svc.url, admin, { group: 'docs', slug, title }, { index: `<p>${title}</p>` })).status).toBe(200);
  }
  expect((await fetch(new URL('/api/sites/docs/trashed', svc.url), { method: 'DELETE', headers: { Authorization: `Bearer ${admin}` } })).status).toBe(204);
});
afterAll(() => svc?.stop());

describe('cross-origin writes with the signed-in admin are refused', () => {
  it('refuses a key created from a site page (no Content-Type, a "simple" request)', async () => {
    const res = await asAdmin('POST', '/api/keys', attacker, JSON.stringify({ name: 'pwned', admin: true }));
    expect(res).toEqual({ status: 403, body: { error: expect.stringMatching(/cross-origin/), code: 'forbidden' } });
    expect(await keyNames()).not.toContain('pwned');
  });

  it('refuses a portal upload over another site (multipart)', async () => {
    const res = await asAdmin('POST', '/api/sites', attacker, portalForm({ group: 'docs', slug: 'victim', title: 'Defaced' }));
    expect(res.status).toBe(403);
    expect(await liveTitle('docs/victim')).toBe('Victim v2');
  });

  it('refuses a rollback, a restore, a patch, an unpublish and a key revocation', async () => {
    expect((await asAdmin('POST', '/api/sites/docs/victim/rollback', attacker)).status).toBe(403);
    expect((await asAdmin('POST', '/api/sites/deleted/docs/trashed', attacker)).status).toBe(403);
    expect((await asAdmin('PATCH', '/api/sites/docs/victim', attacker, JSON.stringify({ title: 'x' }), 'text/plain')).status).toBe(403);
    expect((await asAdmin('DELETE', '/api/sites/docs/victim', attacker)).status).toBe(403);
    expect((await asAdmin('DELETE', '/api/keys/1', attacker)).status).toBe(403);
    expect(await liveTitle('docs/victim')).toBe('Victim v2');
    expect(await liveTitle('docs/trashed')).toBe(404);
    expect(await keyNames()).toContain('admin');
  });

  it('refuses the same from any foreign or opaque origin, with or without Fetch Metadata', async () => {
    const body = JSON.stringify({ name: 'pwned', admin: true });
    const foreign: Record<string, string>[] = [
      { Origin: `http://evil.docs.localhost:${svc.port}` },
      { Origin: 'null' },
      { Origin: 'https://attacker.example' },
      { Origin: `http://localhost.attacker.example:${svc.port}` },
      { 'Sec-Fetch-Site': 'cross-site' },
      { 'Sec-Fetch-Site': 'same-site', Origin: svc.url },
    ];
    for (const from of foreign) {
      expect((await asAdmin('POST', '/api/keys', from, body, 'application/json')).status, JSON.stringify(from)).toBe(403);
    }
    expect(await keyNames()).not.toContain('pwned');
  });

  it('refuses a consent-form post from a site page too (the guard is in front of every apex route)', async () => {
    const res = await asAdmin('POST', '/mcp/oauth/authorize', attacker, 'decision=approve', 'application/x-www-form-urlencoded');
    expect(res.status).toBe(403);
  });

  it('lets reads through: a GET carries no authority to change anything', async () => {
    expect((await asAdmin('GET', '/api/sites/docs/victim', attacker)).status).toBe(200);
  });
});

describe('the legitimate paths still work', () => {
  it('the portal itself (same-origin, apex Origin) creates and revokes a key', async () => {
    const portal = { 'Sec-Fetch-Site': 'same-origin', Origin: svc.url };
    const created = await asAdmin('POST', '/api/keys', portal, JSON.stringify({ name: 'from-portal', admin: true }), 'application/json');
    expect(created.status).toBe(201);
    expect((await asAdmin('DELETE', `/api/keys/${created.body.id}`, portal)).status).toBe(204);
  });

  it('the apex behind a proxy on another scheme or port, an alias apex, or a browser without Fetch Metadata', async () => {
    const apexLike: Record<string, string>[] = [{ Origin: `http://127.0.0.1:${svc.port}` }, { Origin: 'https://localhost' }, { Origin: 'https://LOCALHOST:8443' }, { Origin: `http://localhost:${svc.port}` }, { 'Sec-Fetch-Site': 'none' }, {}];
    for (const from of apexLike) {
      const res = await asAdmin('POST', '/api/sites/docs/victim/rollback', { ...from });
      expect(res.status, JSON.stringify(from)).toBe(200);
    }
    // Back to the newest content for the tests after this one (six swaps of the same two revisions).
    expect(await liveTitle('docs/victim')).toBe('Victim v2');
  });

  it('a bearer key is unaffected by Fetch Metadata and Origin (no browser attaches it on its own)', async () => {
    const res = await fetch(new URL('/api/keys', svc.url), {
      method: 'POST',
      headers: { Authorization: `Bearer ${admin}`, 'Content-Type': 'application/json', ...attacker },
      body: JSON.stringify({ name: 'by-key', admin: true }),
    });
    expect(res.status).toBe(201);
  });
});

describe('publisher bytes on the apex are inert', () => {
  const svgWithScript = '<svg xmlns="http://www.w3.org/2000/svg"><script>fetch("/api/keys",{method:"POST",body:"{}"})</script></svg>';

  it('serves an SVG favicon with a script under the sandbox CSP, never sniffed', async () => {
    await publish(svc.url, admin, { group: 'fav', slug: 'svg', title: 'SVG' }, { files: { 'index.html': '<link rel="icon" href="i.svg">', 'i.svg': svgWithScript } });
    const res = await fetch(new URL('/api/sites/fav/svg/favicon', svc.url), { headers: { 'Remote-User': 'viewer' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^image\/svg\+xml(;|$)/);
    expect(res.headers.get('content-security-policy')).toBe(INERT);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('normalises a padded favicon type and still applies the sandbox', async () => {
    // Not recognisable by its first bytes, so the declared (padded) type was what got stored.
    const padded = `data:image/svg+xml  ;base64,${Buffer.from(`<!-- x -->${svgWithScript}`).toString('base64')}`;
    await publish(svc.url, admin, { group: 'fav', slug: 'padded', title: 'Padded' }, { index: `<link rel="icon" href="${padded}">` });
    const res = await fetch(new URL('/api/sites/fav/padded/favicon', svc.url), { headers: { 'Remote-User': 'viewer' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^image\/svg\+xml(;|$)/);
    expect(res.headers.get('content-security-policy')).toBe(INERT);
  });

  it('does not keep a favicon whose type is not an image type on the allow-list', async () => {
    const odd = `data:image/x-made-up;base64,${Buffer.from('<html><script>alert(1)</script>').toString('base64')}`;
    const res = await publish(svc.url, admin, { group: 'fav', slug: 'odd', title: 'Odd' }, { index: `<link rel="icon" href="${odd}">` });
    expect(res.status).toBe(200);
    expect(res.body.site.has_favicon).toBeUndefined();
    expect((await fetch(new URL('/api/sites/fav/odd/favicon', svc.url), { headers: { 'Remote-User': 'viewer' } })).status).toBe(404);
  });

  it('sends revision files and archives as sandboxed attachments', async () => {
    await publish(svc.url, admin, { group: 'fav', slug: 'files', title: 'Files' }, { files: { 'index.html': '<script>alert(1)</script>', 'x.svg': svgWithScript } });
    for (const path of ['/api/sites/fav/files/revisions/current/file?path=index.html', '/api/sites/fav/files/revisions/current/file?path=x.svg', '/api/sites/fav/files/revisions/current/archive']) {
      const res = await fetch(new URL(path, svc.url), { headers: { 'Remote-User': 'viewer' } });
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-disposition'), path).toMatch(/^attachment/);
      expect(res.headers.get('content-security-policy'), path).toBe(INERT);
      expect(res.headers.get('x-content-type-options'), path).toBe('nosniff');
      await res.arrayBuffer();
    }
  });
});

describe('the portal cannot be framed and runs only its own script', () => {
  it('answers its HTML with frame-ancestors none, X-Frame-Options, a strict script-src and a Referrer-Policy that keeps Origin', async () => {
    for (const path of ['/', '/sites/docs/victim']) {
      const res = await fetch(new URL(path, svc.url));
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      const csp = res.headers.get('content-security-policy')!;
      expect(csp).toContain("frame-ancestors 'none'");
      const scriptSrc = /script-src ([^;]*)/.exec(csp)![1]!;
      expect(scriptSrc).toBe("'self'");
      expect(res.headers.get('referrer-policy')).toBe('same-origin');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });

  it('marks API answers unframeable and inert too', async () => {
    const res = await fetch(new URL('/api/me', svc.url), { headers: { 'Remote-User': 'admin' } });
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
  });
});

describe('malformed request lines answer 400, never 500', () => {
  it('a bad percent-escape, on the portal and the API', async () => {
    for (const path of ['/%E0%A4%A.js', '/%E0%A4%A', '/api/sites/%E0%A4%A', '/api/sites/docs/%zz/revisions']) {
      const res = await fetch(`${svc.url}${path}`, { headers: { 'Remote-User': 'admin' } });
      expect(res.status, path).toBe(400);
      expect(await res.json()).toMatchObject({ code: 'invalid' });
    }
  });

  it('an over-long path, within and beyond what the HTTP parser takes', async () => {
    for (const length of [3_000, 40_000]) {
      const status = await rawStatus(`GET /${'a'.repeat(length)} HTTP/1.1\r\nHost: localhost:${svc.port}\r\n\r\n`);
      expect(status, String(length)).toBe(400);
    }
  });
});

describe('grant targets are canonical', () => {
  it('refuses targets that would silently match nothing, through the API', async () => {
    for (const grant of [
      { kind: 'site', target: 'docs/app/' },
      { kind: 'group', target: 'docs/app/' },
      { kind: 'group', target: 'docs//app' },
      { kind: 'group', target: '/docs' },
      { kind: 'group', target: 'Docs' },
      { kind: 'group', target: 'a/b/c/d' },
      { kind: 'site', target: 'a/b/c/d' },
    ]) {
      const res = await fetch(new URL('/api/keys', svc.url), {
        method: 'POST',
        headers: { Authorization: `Bearer ${admin}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'bad', grants: [{ ...grant, permissions: ['publish'] }] }),
      });
      expect(res.status, JSON.stringify(grant)).toBe(400);
    }
    expect(await keyNames()).not.toContain('bad');
  });

  it('refuses them through the CLI with one line on stderr, and accepts canonical ones', async () => {
    const bad = await svc.cli(['keys', 'create', '--name', 'bad-cli', '--grant-site', 'docs/app/:publish']);
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toMatch(/empty label/);
    const good = await svc.cli(['keys', 'create', '--name', 'good-cli', '--grant-site', 'docs/app:publish', '--grant', 'docs/app:rollback']);
    expect(good.code).toBe(0);
    expect(await keyNames()).toContain('good-cli');
    expect(await keyNames()).not.toContain('bad-cli');
  });
});

describe('bounded work', () => {
  it('publishes a hostile index.html (unclosed link tags, 490 KB) quickly while the service keeps answering', async () => {
    // Quadratic for a backtracking tag pattern: minutes of one core; linear here.
    const hostile = `<html><head>${'<link a'.repeat(70_000)}`;
    const t0 = Date.now();
    const [published, health] = await Promise.all([
      publish(svc.url, admin, { group: '', slug: 'hostile', title: 'Hostile' }, { index: hostile }),
      (async () => {
        await new Promise((r) => setTimeout(r, 50));
        const t = Date.now();
        await fetch(new URL('/healthz', svc.url));
        return Date.now() - t;
      })(),
    ]);
    expect(published.status).toBe(200);
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(health).toBeLessThan(2_000);
  });
});

describe('sites on another registrable domain than the control plane', () => {
  let split: RunningService;
  beforeAll(async () => {
    split = await startService({ env: { SITES_BASE_DOMAIN: 'usercontent.localhost', SITES_CONTROL_DOMAIN: 'portal.localhost', SITES_ALIAS_DOMAINS: 'localhost' } });
  });
  afterAll(() => split?.stop());

  it('puts OAuth and links on the control domain, site URLs on the base, and guards writes by the control origin', async () => {
    const control = `http://portal.localhost:${split.port}`;
    const onControl = (method: string, path: string, headers: Record<string, string> = {}, body?: string) =>
      hostRequest(split.port, method, path, { Host: `portal.localhost:${split.port}`, ...headers }, body);
    expect(JSON.parse((await onControl('GET', '/.well-known/oauth-authorization-server')).body).issuer).toBe(control);
    const key = await split.createKey(['--name', 'k', '--admin']);
    const published = await publish(split.url, key, { group: 'docs', slug: 'app', title: 'App' }, { index: '<p>app</p>' });
    expect(published.body.url).toBe(`http://app.docs.usercontent.localhost:${split.port}/`);
    const write = (origin: string) =>
      onControl('PATCH', '/api/sites/docs/app', { 'Remote-User': 'admin', Origin: origin, 'Content-Type': 'application/json' }, JSON.stringify({ description: 'edited' }));
    expect((await write(control)).status).toBe(200);
    expect((await write(`http://app.docs.usercontent.localhost:${split.port}`)).status).toBe(403);
  });

  it('serves no site under the control domain, where it would be same-site with the portal (issue 24 item 10)', async () => {
    const key = await split.createKey(['--name', 'k2', '--admin']);
    expect((await publish(split.url, key, { group: 'docs', slug: 'ctl', title: 'C' }, { index: '<p>ctl</p>' })).status).toBe(200);
    expect((await publish(split.url, key, { group: '', slug: 'flat', title: 'F' }, { index: '<p>flat</p>' })).status).toBe(200);
    const onHost = (host: string) => hostRequest(split.port, 'GET', '/', { Host: `${host}:${split.port}` });
    expect(await onHost('ctl.docs.usercontent.localhost')).toEqual({ status: 200, body: '<p>ctl</p>' });
    for (const host of ['ctl.docs.portal.localhost', 'flat.portal.localhost']) expect(await onHost(host), host).toEqual({ status: 404, body: 'unknown host\n' });
    // The control domain itself is still the control plane.
    expect((await onHost('portal.localhost')).status).toBe(200);
  });
});

describe('the local admin of a laptop (SITES_LOCAL_ADMIN)', () => {
  let local: RunningService;
  afterAll(() => local?.stop());

  it('signs in requests straight from this machine, never ones through a proxy, and keeps the cross-origin guard', async () => {
    local = await startService({ env: { SITES_LOCAL_ADMIN: 'me' } });
    const me = await fetch(new URL('/api/me', local.url));
    expect(await me.json()).toMatchObject({ user: 'me', is_admin: true });
    expect((await fetch(new URL('/api/me', local.url), { headers: { 'X-Forwarded-For': '203.0.113.9' } })).status).toBe(401);
    const create = (headers: Record<string, string>) =>
      fetch(new URL('/api/keys', local.url), { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify({ name: 'k', admin: true }) });
    expect((await create({ 'Sec-Fetch-Site': 'same-site', Origin: `http://evil.docs.localhost:${local.port}` })).status).toBe(403);
    expect((await create({ 'Sec-Fetch-Site': 'same-origin', Origin: local.url })).status).toBe(201);
  });
});

/** An HTTP request with a Host header of our choosing (fetch will not send one). */
function hostRequest(port: number, method: string, path: string, headers: Record<string, string>, body?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Sends raw bytes and returns the status code of the answer (for what fetch refuses to send). */
function rawStatus(request: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = connect(svc.port, '127.0.0.1', () => socket.write(request));
    let data = '';
    socket.on('data', (c: Buffer) => {
      data += c.toString('latin1');
      const m = /^HTTP\/1\.1 (\d{3})/.exec(data);
      if (m) {
        resolve(Number(m[1]));
        socket.destroy();
      }
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(data)?.[1] ?? -1)));
  });
}

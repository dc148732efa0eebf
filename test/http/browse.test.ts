import { readdir, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import JSZip from 'jszip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../support/http.ts';
import { publish } from '../support/publish.ts';
import { startService, type RunningService } from '../support/service.ts';

let svc: RunningService;
let admin: string;
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
const files = {
  'index.html': '<html><head><link rel="icon" sizes="16x16" href="small.png"><link rel="icon" href="img/logo.svg"></head><body>hi</body></html>',
  'img/logo.svg': '<svg xmlns="http://www.w3.org/2000/svg"><circle r="4"/></svg>',
  'small.png': PNG,
  'css/site.css': 'body { color: blue }',
  'about/index.html': '<p>about</p>',
};

beforeAll(async () => {
  svc = await startService();
  admin = await svc.createKey(['--name', 'admin', '--admin']);
  await publish(svc.url, admin, { group: 'br', slug: 'site', title: 'Browse' }, { files });
  await publish(svc.url, admin, { group: 'br', slug: 'site' }, { files: { ...files, 'new.txt': 'second revision' } });
  await publish(svc.url, admin, { group: 'br', slug: 'hidden', title: 'Secret', hidden: true }, { files: { 'index.html': 'secret' } });
});
afterAll(() => svc?.stop());

describe('browsing revisions', () => {
  it('lists the file tree, directories first then by name', async () => {
    const tree = await call(svc.url, 'GET', '/api/sites/br/site/revisions/current/files', { user: 'viewer' });
    expect(tree.status).toBe(200);
    expect(tree.body).toMatchObject({ name: '', path: '', dir: true });
    expect(tree.body.children.map((c: any) => c.name)).toEqual(['about', 'css', 'img', 'index.html', 'new.txt', 'small.png']);
    expect(tree.body.children[1]).toMatchObject({ name: 'css', path: 'css', dir: true, children: [{ name: 'site.css', path: 'css/site.css', dir: false, size: 20 }] });
  });

  it('downloads one file of an archived revision as an attachment', async () => {
    const revs = (await call(svc.url, 'GET', '/api/sites/br/site/revisions', { user: 'viewer' })).body.revisions;
    expect(revs).toHaveLength(2);
    const old = revs[1].id;
    const oldTree = await call(svc.url, 'GET', `/api/sites/br/site/revisions/${old}/files`, { user: 'viewer' });
    expect(oldTree.body.children.map((c: any) => c.name)).not.toContain('new.txt');
    const res = await fetch(`${svc.url}/api/sites/br/site/revisions/${old}/file?path=small.png`, { headers: { 'Remote-User': 'viewer' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="small.png"/);
    expect(Buffer.from(await res.arrayBuffer()).equals(PNG)).toBe(true);
    expect((await call(svc.url, 'GET', `/api/sites/br/site/revisions/${old}/file?path=new.txt`, { user: 'viewer' })).status).toBe(404);
    expect((await call(svc.url, 'GET', '/api/sites/br/site/revisions/20200101T000000.000000000Z/files', { user: 'viewer' })).status).toBe(404);
  });

  it('streams a revision as a zip holding exactly its files', async () => {
    const res = await fetch(`${svc.url}/api/sites/br/site/revisions/current/archive`, { headers: { 'Remote-User': 'viewer' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/zip');
    const zip = await JSZip.loadAsync(Buffer.from(await res.arrayBuffer()));
    const names = Object.values(zip.files).filter((f) => !f.dir).map((f) => f.name).sort();
    expect(names).toEqual(['about/index.html', 'css/site.css', 'img/logo.svg', 'index.html', 'new.txt', 'small.png']);
    expect(await zip.file('small.png')!.async('nodebuffer')).toEqual(PNG);
    expect(await zip.file('new.txt')!.async('string')).toBe('second revision');
  });

  it('dates every file of a revision zip by the revision, not 1980 or 2098', async () => {
    const revs = (await call(svc.url, 'GET', '/api/sites/br/site/revisions', { user: 'viewer' })).body.revisions;
    const published = Date.parse(revs[0].created_at);
    const res = await fetch(`${svc.url}/api/sites/br/site/revisions/${revs[0].id}/archive`, { headers: { 'Remote-User': 'viewer' } });
    // unzip reads the zip's own DOS dates (2-second resolution, no zone): what users see when they extract.
    const zip = await JSZip.loadAsync(Buffer.from(await res.arrayBuffer()));
    for (const file of Object.values(zip.files).filter((f) => !f.dir)) {
      expect(Math.abs(file.date.getTime() - published), file.name).toBeLessThan(2 * 24 * 3600_000);
    }
  });

  it('closes the files of a revision zip whose download is abandoned', async () => {
    // Ten 1 MB files that do not compress, so the download is still reading them when it is cut.
    const big = (seed: number) => {
      const bytes = Buffer.alloc(1 << 20);
      let x = seed;
      for (let i = 0; i < bytes.length; i++) bytes[i] = (x = (Math.imul(x, 1103515245) + 12345) >>> 0) >>> 24;
      return bytes;
    };
    const files = Object.fromEntries(Array.from({ length: 10 }, (_, n) => [`f${n}.bin`, big(n + 1)]));
    await publish(svc.url, admin, { group: 'br', slug: 'big', title: 'Big' }, { files: { 'index.html': 'big', ...files } });
    const blobFds = async () => {
      let count = 0;
      for (const fd of await readdir(`/proc/${svc.pid}/fd`)) {
        const target = await readlink(`/proc/${svc.pid}/fd/${fd}`).catch(() => '');
        if (target.startsWith(join(svc.dataDir, 'blobs'))) count++;
      }
      return count;
    };
    const controller = new AbortController();
    const res = await fetch(`${svc.url}/api/sites/br/big/revisions/current/archive`, { headers: { 'Remote-User': 'viewer' }, signal: controller.signal });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    await reader.read();
    controller.abort();
    await reader.cancel().catch(() => undefined);
    await expect.poll(blobFds, { timeout: 5_000 }).toBe(0);
  });

  it('serves every revision file as an inert download, a script included (issue 24 item 9)', async () => {
    // With its own type, a publisher's script could run with the apex origin from a `<script src>` on the apex.
    const script = 'fetch("/api/keys", { method: "POST" })';
    await publish(svc.url, admin, { group: 'br', slug: 'js', title: 'JS' }, { files: { 'index.html': '<p>js</p>', 'app.js': script, 'page.html': '<script>1</script>', 'mod.mjs': 'export {}' } });
    for (const path of ['app.js', 'mod.mjs', 'page.html', 'index.html']) {
      const res = await fetch(`${svc.url}/api/sites/br/js/revisions/current/file?path=${path}`, { headers: { 'Remote-User': 'viewer' } });
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type'), path).toBe('application/octet-stream');
      expect(res.headers.get('content-disposition'), path).toMatch(new RegExp(`^attachment; filename="${path}"`));
      expect(res.headers.get('x-content-type-options'), path).toBe('nosniff');
      if (path === 'app.js') expect(await res.text()).toBe(script);
    }
  });

  it('detects the favicon at publish, preferring SVG', async () => {
    const site = await call(svc.url, 'GET', '/api/sites/br/site', { user: 'viewer' });
    expect(site.body.has_favicon).toBe(true);
    const icon = await fetch(`${svc.url}/api/sites/br/site/favicon`, { headers: { 'Remote-User': 'viewer' } });
    expect(icon.headers.get('content-type')).toBe('image/svg+xml');
    expect(icon.headers.get('cache-control')).toBe('public, max-age=3600');
    expect(await icon.text()).toBe(files['img/logo.svg']);
  });

  it('decodes data: URIs, ignores external URLs and falls back to /favicon.ico', async () => {
    const dataUri = `<link rel="shortcut icon" href="data:image/png;base64,${PNG.toString('base64')}">`;
    await publish(svc.url, admin, { group: 'br', slug: 'data', title: 'D' }, { files: { 'index.html': dataUri } });
    const icon = await fetch(`${svc.url}/api/sites/br/data/favicon`, { headers: { 'Remote-User': 'viewer' } });
    expect(icon.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await icon.arrayBuffer())).toEqual(PNG);
    await publish(svc.url, admin, { group: 'br', slug: 'ext', title: 'E' }, { files: { 'index.html': '<link rel="icon" href="https://example.com/x.png">' } });
    expect((await call(svc.url, 'GET', '/api/sites/br/ext', { user: 'viewer' })).body.has_favicon).toBeUndefined();
    expect((await call(svc.url, 'GET', '/api/sites/br/ext/favicon', { user: 'viewer' })).status).toBe(404);
    await publish(svc.url, admin, { group: 'br', slug: 'ico', title: 'I' }, { files: { 'index.html': 'x', 'favicon.ico': Buffer.from([0, 0, 1, 0, 1, 0]) } });
    expect((await call(svc.url, 'GET', '/api/sites/br/ico', { user: 'viewer' })).body.has_favicon).toBe(true);
  });

  it('hides hidden sites from non-admins on every route', async () => {
    for (const path of ['', '/revisions', '/revisions/current/files', '/revisions/current/file?path=index.html', '/revisions/current/archive', '/favicon']) {
      expect((await call(svc.url, 'GET', `/api/sites/br/hidden${path}`, { user: 'viewer' })).status).toBe(404);
    }
    expect((await call(svc.url, 'GET', '/api/sites/br/hidden', { user: 'admin' })).status).toBe(200);
    expect((await call(svc.url, 'GET', '/api/sites/br/hidden/revisions/current/files', { user: 'admin' })).status).toBe(200);
    const viewerList = (await call(svc.url, 'GET', '/api/sites?hidden=true', { user: 'viewer' })).body;
    expect(viewerList.sites.some((s: any) => s.slug === 'hidden')).toBe(false);
    const adminList = (await call(svc.url, 'GET', '/api/sites?hidden=true', { user: 'admin' })).body;
    expect(adminList.sites.some((s: any) => s.slug === 'hidden')).toBe(true);
    expect(await (await fetch(svc.siteUrl('br/hidden'))).text()).toBe('secret'); // hidden means unlisted, still served
  });
});

describe('forward auth and roles', () => {
  it('trusts the identity header only from trusted proxies', async () => {
    const me = await call(svc.url, 'GET', '/api/me', { user: 'admin' });
    expect(me.body).toMatchObject({ user: 'admin', is_admin: true, base_domain: 'localhost', versioning_enabled: true });
    expect((await call(svc.url, 'GET', '/api/me', { user: 'bob' })).body.is_admin).toBe(false);
    expect((await call(svc.url, 'GET', '/api/me')).status).toBe(401);
    const untrusted = await startService({ env: { SITES_TRUSTED_PROXIES: '10.0.0.0/8' } });
    try {
      const r = await call(untrusted.url, 'GET', '/api/sites', { user: 'admin' });
      expect(r.status).toBe(401);
      expect(r.body).toEqual({ error: expect.any(String), code: 'unauthenticated' });
    } finally {
      await untrusted.stop();
    }
  });

  it('refuses admin calls to viewers and scoped keys with 403', async () => {
    const scoped = await svc.createKey(['--name', 'scoped', '--grant', 'br:publish']);
    expect((await call(svc.url, 'GET', '/api/keys', { user: 'viewer' })).status).toBe(403);
    expect((await call(svc.url, 'GET', '/api/keys', { key: scoped })).status).toBe(403);
    expect((await call(svc.url, 'PATCH', '/api/sites/br/site', { user: 'viewer', body: { title: 'x' } })).status).toBe(403);
    expect((await call(svc.url, 'GET', '/api/sites/br/site/events', { user: 'viewer' })).status).toBe(403);
    expect((await call(svc.url, 'GET', '/api/sites', { key: scoped })).status).toBe(200);
  });
});

describe('keys over HTTP', () => {
  it('creates a key once, lists it without the token, tracks use, and revokes it at once', async () => {
    const created = await call(svc.url, 'POST', '/api/keys', { user: 'admin', body: { name: 'ci', grants: [{ kind: 'group', target: 'br', permissions: ['publish'] }] } });
    expect(created.status).toBe(201);
    expect(created.body.key).toMatch(/^key_[A-Za-z0-9_-]{43}$/);
    const listed = (await call(svc.url, 'GET', '/api/keys', { user: 'admin' })).body.keys.find((k: any) => k.id === created.body.id);
    expect(listed).toMatchObject({ name: 'ci', admin: false, grants: [{ kind: 'group', target: 'br', permissions: ['publish'] }] });
    expect(JSON.stringify(listed)).not.toContain(created.body.key);
    expect((await publish(svc.url, created.body.key, { group: 'br', slug: 'by-ci', title: 'CI' }, { index: 'x' })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 200));
    const used = (await call(svc.url, 'GET', '/api/keys', { user: 'admin' })).body.keys.find((k: any) => k.id === created.body.id);
    expect(used.last_used_at).toEqual(expect.any(String));
    expect((await call(svc.url, 'DELETE', `/api/keys/${created.body.id}`, { user: 'admin' })).status).toBe(204);
    expect((await publish(svc.url, created.body.key, { group: 'br', slug: 'by-ci' }, { index: 'y' })).status).toBe(401);
    expect((await call(svc.url, 'DELETE', `/api/keys/${created.body.id}`, { user: 'admin' })).status).toBe(404);
  });

  it('validates key input', async () => {
    const bad = [
      {},
      { name: 'x' },
      { name: 'x', grants: [{ kind: 'group', target: 'Bad!', permissions: ['publish'] }] },
      { name: 'x', grants: [{ kind: 'group', target: 'ok', permissions: ['fly'] }] },
      { name: 'x', admin: true, expires_at: '2001-01-01T00:00:00Z' },
    ];
    for (const body of bad) expect((await call(svc.url, 'POST', '/api/keys', { user: 'admin', body })).status).toBe(400);
  });
});

describe('audit history', () => {
  it('lists every event of the site with its actor, oldest first', async () => {
    await call(svc.url, 'PATCH', '/api/sites/br/site', { user: 'admin', body: { description: 'from the portal' } });
    const events = (await call(svc.url, 'GET', '/api/sites/br/site/events', { user: 'admin' })).body.events;
    expect(events.map((e: any) => e.type)).toEqual(['SitePublished', 'SiteArchived', 'SitePublished', 'SitePatched']);
    expect(events[0].actor).toMatchObject({ kind: 'key', name: 'admin' });
    expect(events[3].actor).toEqual({ kind: 'user', name: 'admin' });
    expect(events.every((e: any) => !Number.isNaN(Date.parse(e.at)))).toBe(true);
  });
});

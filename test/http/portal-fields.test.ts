/**
 * What the portal needs from the API beyond the seed's shapes (issue 30): who made a site's
 * last change (`updated_by`), when a trashed site is purged (`purge_at`), revoked keys with
 * who revoked them when (`GET /api/keys?revoked=true`), and incremental deploys on the
 * management plane for a signed-in admin (`/api/deploys…`), behind the cross-origin guard.
 * Every answer `call()` sees is checked against the OpenAPI document.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, checkResponse } from '../support/http.ts';
import { publish } from '../support/publish.ts';
import { startService, type RunningService } from '../support/service.ts';

let svc: RunningService;
let adminKey: string;
let docsKey: string;
const TTL_MS = 48 * 3_600_000;
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

beforeAll(async () => {
  svc = await startService({ env: { SITES_DELETED_SITE_TTL: '48h' } });
  adminKey = await svc.createKey(['--name', 'root', '--admin']);
  docsKey = await svc.createKey(['--name', 'ci-docs', '--grant', 'docs:publish']);
});
afterAll(() => svc?.stop());

/** A request as the portal sends it: signed in through the proxy, from the apex. */
const fromPortal = (user = 'admin') => ({ 'Remote-User': user, 'Sec-Fetch-Site': 'same-origin', Origin: svc.url });

async function send(method: string, path: string, headers: Record<string, string>, body?: string, type = 'application/json') {
  const res = await fetch(new URL(path, svc.url), { method, headers: { ...headers, ...(body !== undefined ? { 'Content-Type': type } : {}) }, body });
  const text = await res.text();
  const parsed = text ? JSON.parse(text) : undefined;
  checkResponse(method, new URL(path, svc.url).pathname, { status: res.status, type: res.headers.get('content-type') ?? '', text, body: parsed });
  return { status: res.status, body: parsed };
}

describe('updated_by: who made the change updated_at is the time of', () => {
  it('names the key of a publish, then the signed-in admin of an edit, in the site and in the list', async () => {
    expect((await publish(svc.url, docsKey, { group: 'docs', slug: 'who', title: 'Who' }, { index: '<p>1</p>' })).status).toBe(200);
    const published = await call(svc.url, 'GET', '/api/sites/docs/who', { user: 'admin' });
    expect(published.body.updated_by).toEqual({ kind: 'key', id: expect.any(Number), name: 'ci-docs' });

    const patched = await send('PATCH', '/api/sites/docs/who', fromPortal(), JSON.stringify({ title: 'Who edited' }));
    expect(patched.status).toBe(200);
    expect(patched.body.updated_by).toEqual({ kind: 'user', name: 'admin' });
    const list = await call(svc.url, 'GET', '/api/sites?q=who', { user: 'admin' });
    expect(list.body.sites).toEqual([expect.objectContaining({ title: 'Who edited', updated_by: { kind: 'user', name: 'admin' }, updated_at: patched.body.updated_at })]);
  });

  it('attack: a viewer or a publish key learns nothing of admin keys and users; the listing an admin just cached is not theirs', async () => {
    expect((await publish(svc.url, adminKey, { group: 'docs', slug: 'audited', title: 'Audited' }, { index: '<p>1</p>' })).status).toBe(200);
    // The admin's listing first: its bytes are cached under the query.
    const forAdmin = await call(svc.url, 'GET', '/api/sites?q=audited', { user: 'admin' });
    expect(forAdmin.body.sites[0].updated_by).toEqual({ kind: 'key', id: expect.any(Number), name: 'root' });
    const readers = [{ user: 'vera' }, { key: docsKey }];
    for (const reader of readers) {
      const who = JSON.stringify(reader);
      const list = await call(svc.url, 'GET', '/api/sites?q=audited', reader);
      expect(list.status, who).toBe(200);
      expect(JSON.stringify(list.body), who).not.toMatch(/updated_by|"root"/);
      expect(list.body.sites[0].updated_at, who).toBe(forAdmin.body.sites[0].updated_at);
      const one = await call(svc.url, 'GET', '/api/sites/docs/audited', reader);
      expect(one.body, who).not.toHaveProperty('updated_by');
    }
    // A publish key's own answers too (the publish result, a patch).
    const republished = await publish(svc.url, docsKey, { group: 'docs', slug: 'audited' }, { index: '<p>2</p>' });
    expect(republished.status).toBe(200);
    expect(JSON.stringify(republished.body)).not.toContain('updated_by');
    // The audit history stays admin-only.
    expect((await call(svc.url, 'GET', '/api/sites/docs/audited/events', { user: 'vera' })).status).toBe(403);
  });

  it('follows a rollback made by another admin key', async () => {
    expect((await publish(svc.url, docsKey, { group: 'docs', slug: 'who' }, { index: '<p>2</p>' })).status).toBe(200);
    const rolled = await call(svc.url, 'POST', '/api/sites/docs/who/rollback', { key: adminKey });
    expect(rolled.status).toBe(200);
    expect(rolled.body.updated_by).toEqual({ kind: 'key', id: expect.any(Number), name: 'root' });
  });
});

describe('purge_at: when a site in the trash is purged', () => {
  it('is deleted_at plus SITES_DELETED_SITE_TTL, on trashed sites only', async () => {
    expect((await publish(svc.url, adminKey, { group: '', slug: 'doomed', title: 'Doomed' }, { index: '<p>x</p>' })).status).toBe(200);
    expect((await call(svc.url, 'GET', '/api/sites/doomed', { user: 'admin' })).body.purge_at).toBeUndefined();
    expect((await call(svc.url, 'DELETE', '/api/sites/doomed', { key: adminKey })).status).toBe(204);
    const trash = await call(svc.url, 'GET', '/api/sites/deleted', { user: 'admin' });
    const doomed = trash.body.sites.find((s: { slug: string }) => s.slug === 'doomed');
    expect(Date.parse(doomed.purge_at) - Date.parse(doomed.deleted_at)).toBe(TTL_MS);
    expect(doomed.updated_by).toEqual({ kind: 'key', id: expect.any(Number), name: 'root' });
  });
});

describe('revoked keys: listed on request, with who revoked them when', () => {
  it('hides revoked keys by default and lists them with revoked_at and revoked_by when asked', async () => {
    const made = await send('POST', '/api/keys', fromPortal(), JSON.stringify({ name: 'short-lived', admin: true }));
    expect(made.status).toBe(201);
    const before = Date.now();
    expect((await send('DELETE', `/api/keys/${made.body.id}`, fromPortal())).status).toBe(204);

    const active = await call(svc.url, 'GET', '/api/keys', { user: 'admin' });
    expect(active.body.keys.map((k: { name: string }) => k.name)).not.toContain('short-lived');
    for (const k of active.body.keys) expect(k.revoked_at).toBeUndefined();

    const all = await call(svc.url, 'GET', '/api/keys?revoked=true', { user: 'admin' });
    const revoked = all.body.keys.find((k: { id: number }) => k.id === made.body.id);
    expect(revoked).toMatchObject({ name: 'short-lived', revoked_by: { kind: 'user', name: 'admin' } });
    expect(Date.parse(revoked.revoked_at)).toBeGreaterThanOrEqual(before - 1000);
    expect(all.body.keys.filter((k: { revoked_at?: string }) => !k.revoked_at).length).toBe(active.body.keys.length);
  });

  it('refuses a revoked filter that is not a boolean, and viewers', async () => {
    expect((await call(svc.url, 'GET', '/api/keys?revoked=maybe', { user: 'admin' })).status).toBe(400);
    expect((await call(svc.url, 'GET', '/api/keys?revoked=true', { user: 'vera' })).status).toBe(403);
  });
});

describe('incremental deploys on the management plane (the portal’s folder upload)', () => {
  const files = { 'index.html': '<h1>folder v1</h1>', 'a.css': 'a{}', 'big.txt': 'x'.repeat(5000) };
  const manifest = (f: Record<string, string>) => Object.fromEntries(Object.entries(f).map(([p, c]) => [p, sha256(c)]));

  async function deployAs(headers: Record<string, string>, meta: object, f: Record<string, string>) {
    const created = await send('POST', '/api/deploys', headers, JSON.stringify({ meta, files: manifest(f) }));
    if (created.status !== 201) return { created, uploaded: [] as string[], published: undefined };
    const byDigest = new Map(Object.values(f).map((c) => [sha256(c), c]));
    const uploaded: string[] = [];
    for (const digest of created.body.required as string[]) {
      const put = await send('PUT', `/api/deploys/${created.body.id}/files/${digest}`, headers, byDigest.get(digest)!, 'application/octet-stream');
      expect(put.status).toBe(204);
      uploaded.push(digest);
    }
    return { created, uploaded, published: await send('POST', `/api/deploys/${created.body.id}/publish`, headers) };
  }

  it('lets the signed-in admin publish a folder, then upload only what changed', async () => {
    const first = await deployAs(fromPortal(), { group: 'docs', slug: 'folder', title: 'Folder' }, files);
    expect(first.published?.status).toBe(200);
    expect(first.uploaded.length).toBe(3);
    expect(first.published?.body.site.updated_by).toEqual({ kind: 'user', name: 'admin' });
    expect(await (await fetch(svc.siteUrl('docs/folder'))).text()).toBe('<h1>folder v1</h1>');

    const second = await deployAs(fromPortal(), { group: 'docs', slug: 'folder' }, { ...files, 'index.html': '<h1>folder v2</h1>' });
    expect(second.published?.status).toBe(200);
    expect(second.uploaded).toEqual([sha256('<h1>folder v2</h1>')]);
    expect(await (await fetch(svc.siteUrl('docs/folder'))).text()).toBe('<h1>folder v2</h1>');
  });

  it('refuses viewers, and scoped keys, before looking anything up', async () => {
    const meta = { group: 'docs', slug: 'folder', title: 'x' };
    expect((await deployAs(fromPortal('vera'), meta, files)).created.status).toBe(403);
    expect((await deployAs({ Authorization: `Bearer ${docsKey}` }, meta, files)).created.status).toBe(403);
    expect((await send('POST', '/api/deploys', {}, JSON.stringify({ meta, files: manifest(files) }))).status).toBe(401);
  });

  it('refuses every call of it from a published page with the admin’s sign-in (cross-origin guard)', async () => {
    const evil = { 'Remote-User': 'admin', 'Sec-Fetch-Site': 'same-site', Origin: `http://evil.docs.localhost:${svc.port}` };
    const meta = { group: 'docs', slug: 'folder' };
    const defaced = { 'index.html': '<h1>defaced</h1>' };
    expect((await send('POST', '/api/deploys', evil, JSON.stringify({ meta, files: manifest(defaced) }))).status).toBe(403);
    // a deploy the admin opened in the portal cannot be filled or published from a site page either
    const created = await send('POST', '/api/deploys', fromPortal(), JSON.stringify({ meta, files: manifest(defaced) }));
    expect(created.status).toBe(201);
    const digest = sha256(defaced['index.html']);
    expect((await send('PUT', `/api/deploys/${created.body.id}/files/${digest}`, evil, defaced['index.html'], 'application/octet-stream')).status).toBe(403);
    expect((await send('POST', `/api/deploys/${created.body.id}/publish`, evil)).status).toBe(403);
    expect(await (await fetch(svc.siteUrl('docs/folder'))).text()).toBe('<h1>folder v2</h1>');
  });

  it('keeps a deploy the admin opened in the portal away from a scoped key on the ingest plane', async () => {
    const f = { 'index.html': '<h1>mine</h1>' };
    const created = await send('POST', '/api/deploys', fromPortal(), JSON.stringify({ meta: { group: 'docs', slug: 'folder' }, files: manifest(f) }));
    expect(created.status).toBe(201);
    const put = await fetch(new URL(`/ingest/deploys/${created.body.id}/files/${sha256(f['index.html'])}`, svc.url), {
      method: 'PUT',
      headers: { Authorization: `Bearer ${docsKey}` },
      body: f['index.html'],
    });
    expect(put.status).toBe(404);
    expect((await call(svc.url, 'POST', `/ingest/deploys/${created.body.id}/publish`, { key: docsKey })).status).toBe(404);
    // an admin key may finish it, as it may any deploy (spec §10)
    expect((await call(svc.url, 'POST', `/ingest/deploys/${created.body.id}/publish`, { key: adminKey })).status).toBe(409);
  });
});

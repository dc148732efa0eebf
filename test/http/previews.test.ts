import { createHash } from 'node:crypto';
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, text } from '../support/http.ts';
import { putPreview, variantUrl } from '../support/previews.ts';
import { publish } from '../support/publish.ts';
import { startService, type RunningService } from '../support/service.ts';

/**
 * Previews and permalinks over HTTP on the embedded stack (spec §14): the preview capability,
 * the routes, serving with noindex and every site-host rule, limits, the lifecycle interplay,
 * listings, diffs, events and garbage collection. Expiry runs in its own service (a short TTL).
 */

let svc: RunningService;
let admin: string;
let previewKey: string;
let publishKey: string;
let otherKey: string;

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const stored = (dataDir: string, content: string) =>
  access(join(dataDir, 'blobs', sha(content).slice(0, 2), sha(content))).then(
    () => true,
    () => false,
  );
const pv = (site: string, name: string) => variantUrl(svc.port, site, name);
const events = async (site: string) => (await call(svc.url, 'GET', `/api/sites/${site}/events`, { user: 'admin' })).body.events as any[];

beforeAll(async () => {
  svc = await startService({ env: { SITES_VERSIONING_KEEP: '1', SITES_MAX_PREVIEWS_PER_SITE: '3' } });
  admin = await svc.createKey(['--name', 'admin', '--admin']);
  previewKey = await svc.createKey(['--name', 'ci-untrusted', '--grant', 'docs:preview']);
  publishKey = await svc.createKey(['--name', 'ci', '--grant', 'docs:publish']);
  otherKey = await svc.createKey(['--name', 'elsewhere', '--grant', 'other:preview,publish']);
  const live = { 'index.html': '<h1>live</h1>', 'about.html': '<p>about</p>', 'gone.html': '<p>gone</p>', 'style.css': 'body{}' };
  expect((await publish(svc.url, admin, { group: 'docs', slug: 'app', title: 'App' }, { files: live })).status).toBe(200);
});
afterAll(() => svc?.stop());

describe('the preview capability', () => {
  it('a key holding only preview publishes, lists and removes previews, and can change nothing live', async () => {
    const r = await putPreview(svc.url, previewKey, 'docs/app', 'pr-1', { files: { 'index.html': '<h1>pr-1</h1>' } });
    expect(r.status).toBe(200);
    expect(r.body.preview).toMatchObject({ name: 'pr-1', url: pv('docs/app', 'pr-1'), files: 1, created_by: { kind: 'key', name: 'ci-untrusted' } });
    // Everything that changes what is live is refused, before the site is looked up.
    expect((await publish(svc.url, previewKey, { group: 'docs', slug: 'app' }, { index: '<h1>hijack</h1>' })).status).toBe(403);
    expect((await publish(svc.url, previewKey, { group: 'docs', slug: 'new', title: 'N' }, { index: '<h1>x</h1>' })).status).toBe(403);
    expect((await call(svc.url, 'DELETE', '/ingest/sites/docs/app', { key: previewKey })).status).toBe(403);
    expect((await call(svc.url, 'PATCH', '/ingest/sites/docs/app', { key: previewKey, body: { title: 'x' } })).status).toBe(403);
    expect((await call(svc.url, 'POST', '/ingest/sites/docs/app/rollback', { key: previewKey })).status).toBe(403);
    expect((await call(svc.url, 'GET', '/ingest/sites/docs/app/revisions', { key: previewKey })).status).toBe(403);
    expect((await call(svc.url, 'POST', '/ingest/deploys', { key: previewKey, body: { meta: { group: 'docs', slug: 'app' }, files: { 'index.html': sha('x') } } })).status).toBe(403);
    expect(await text(svc.siteUrl('docs/app'))).toBe('200 <h1>live</h1>');

    const list = await call(svc.url, 'GET', '/ingest/sites/docs/app/previews', { key: previewKey });
    expect(list.status).toBe(200);
    expect(list.body.previews.map((p: any) => p.name)).toEqual(['pr-1']);
    expect((await call(svc.url, 'DELETE', '/ingest/sites/docs/app/previews/pr-1', { key: previewKey })).status).toBe(204);
    expect((await call(svc.url, 'GET', '/ingest/sites/docs/app/previews', { key: previewKey })).body.previews).toEqual([]);
  });

  it('publish implies preview; a grant elsewhere gets 403 whether or not the site exists', async () => {
    expect((await putPreview(svc.url, publishKey, 'docs/app', 'from-publish', { index: '<p>p</p>' })).status).toBe(200);
    expect((await call(svc.url, 'DELETE', '/ingest/sites/docs/app/previews/from-publish', { key: publishKey })).status).toBe(204);
    expect((await putPreview(svc.url, otherKey, 'docs/app', 'x', { index: '<p>x</p>' })).status).toBe(403);
    expect((await putPreview(svc.url, otherKey, 'docs/nothing-here', 'x', { index: '<p>x</p>' })).status).toBe(403);
    expect((await call(svc.url, 'GET', '/ingest/sites/docs/app/previews', { key: otherKey })).status).toBe(403);
    expect((await call(svc.url, 'DELETE', '/ingest/sites/docs/app/previews/x', { key: otherKey })).status).toBe(403);
    expect((await putPreview(svc.url, undefined, 'docs/app', 'x', { index: '<p>x</p>' })).status).toBe(401);
  });

  it('refuses bad names with 400, and a preview of a site that is not live with 404', async () => {
    for (const name of ['v7', 'v0', 'Pr-1', 'a--b', '-a', 'x'.repeat(60)]) {
      const r = await putPreview(svc.url, previewKey, 'docs/app', name, { index: '<p>x</p>' });
      expect(r.status, name).toBe(400);
      expect(r.body.code).toBe('invalid');
    }
    const missing = await putPreview(svc.url, previewKey, 'docs/missing', 'pr-1', { index: '<p>x</p>' });
    expect(missing).toMatchObject({ status: 404, body: { code: 'not_found' } });
    expect((await call(svc.url, 'DELETE', '/ingest/sites/docs/app/previews/never', { key: previewKey })).status).toBe(404);
    // `--` is reserved in site labels (spec §1).
    expect((await publish(svc.url, admin, { group: 'docs', slug: 'a--b', title: 'x' }, { index: '<p>x</p>' })).status).toBe(400);
    expect((await publish(svc.url, admin, { group: 'd--x', slug: 'a', title: 'x' }, { index: '<p>x</p>' })).status).toBe(400);
  });
});

describe('publishing a preview', () => {
  it('answers PreviewResult: counts against live and the changed pages, added first; the live site is untouched', async () => {
    const files = { 'index.html': '<h1>pr-2</h1>', 'about.html': '<p>about</p>', 'new/index.html': '<p>new</p>', 'b.html': '<p>b</p>', 'style.css': 'body{color:red}' };
    const r = await putPreview(svc.url, previewKey, 'docs/app', 'pr-2', { files }, { title: 'Fix the header', repo: 'https://github.com/o/r/pull/2' });
    expect(r.status).toBe(200);
    expect(r.body.changes).toEqual({ added: 2, changed: 2, removed: 1 });
    const base = pv('docs/app', 'pr-2');
    expect(r.body.pages).toEqual([`${base}b.html`, `${base}new/`, base]);
    expect(r.body.unchanged).toBe(false);
    expect(r.body.preview).toMatchObject({ title: 'Fix the header', repo: 'https://github.com/o/r/pull/2', files: 5 });
    // Expiry is computed just before the append, whose time is updated_at: within a second of the TTL.
    expect(Date.parse(r.body.preview.expires_at) - Date.parse(r.body.preview.updated_at)).toBeGreaterThan(336 * 3600_000 - 1000);
    expect(Date.parse(r.body.preview.expires_at) - Date.parse(r.body.preview.updated_at)).toBeLessThanOrEqual(336 * 3600_000);
    expect(await text(svc.siteUrl('docs/app'))).toBe('200 <h1>live</h1>');

    // The same again records nothing; a new description alone is recorded, the files kept.
    const before = (await events('docs/app')).length;
    const again = await putPreview(svc.url, previewKey, 'docs/app', 'pr-2', { files });
    expect(again.body).toMatchObject({ unchanged: true, preview: { revision: r.body.preview.revision, title: 'Fix the header' } });
    expect((await events('docs/app')).length).toBe(before);
    const retitled = await putPreview(svc.url, previewKey, 'docs/app', 'pr-2', { files }, { title: 'Fix the header, v2' });
    expect(retitled.body).toMatchObject({ unchanged: false, preview: { revision: r.body.preview.revision, title: 'Fix the header, v2' } });

    // Another push replaces the content atomically, under the same name and URL.
    const pushed = await putPreview(svc.url, previewKey, 'docs/app', 'pr-2', { files: { ...files, 'index.html': '<h1>pr-2 again</h1>' } });
    expect(pushed.body.preview.revision > r.body.preview.revision).toBe(true);
    expect(await text(base)).toBe('200 <h1>pr-2 again</h1>');
  });

  it('records PreviewPublished with the counts and PreviewRemoved with who removed it', async () => {
    expect((await putPreview(svc.url, previewKey, 'docs/app', 'pr-3', { index: '<p>3</p>' })).status).toBe(200);
    expect((await call(svc.url, 'DELETE', '/api/sites/docs/app/previews/pr-3', { user: 'admin' })).status).toBe(204);
    const log = await events('docs/app');
    const published = log.filter((e) => e.type === 'PreviewPublished' && e.data.name === 'pr-3');
    expect(published).toHaveLength(1);
    expect(published[0].data).toMatchObject({ filesAdded: 0, filesChanged: 1, filesRemoved: 3 });
    expect(published[0].actor).toMatchObject({ kind: 'key', name: 'ci-untrusted' });
    const removed = log.find((e) => e.type === 'PreviewRemoved' && e.data.name === 'pr-3');
    expect(removed.actor).toMatchObject({ kind: 'user', name: 'admin' });
  });

  it('refuses a body that is not a publish multipart, changing nothing', async () => {
    const before = (await events('docs/app')).length;
    const url = new URL('/ingest/sites/docs/app/previews/bad', svc.url);
    const auth = { Authorization: `Bearer ${previewKey}` };
    expect((await fetch(url, { method: 'PUT', headers: { ...auth, 'Content-Type': 'application/json' }, body: '{}' })).status).toBe(415);
    const metaOnly = new FormData();
    metaOnly.append('meta', JSON.stringify({ title: 'no files' }));
    const r = await fetch(url, { method: 'PUT', headers: auth, body: metaOnly });
    expect([r.status, ((await r.json()) as { code: string }).code]).toEqual([400, 'invalid']);
    const notArchive = new FormData();
    notArchive.append('bundle', new Blob(['not an archive']), 'site.tgz');
    // As a site publish answers an unknown archive format (spec §2).
    expect((await fetch(url, { method: 'PUT', headers: auth, body: notArchive })).status).toBe(415);
    const noIndex = await putPreview(svc.url, previewKey, 'docs/app', 'bad', { files: { 'about.html': '<p>no index</p>' } });
    expect(noIndex.status).toBe(400);
    expect((await events('docs/app')).length).toBe(before);
    expect((await fetch(pv('docs/app', 'bad'))).status).toBe(404);
  });

  it('allows SITES_MAX_PREVIEWS_PER_SITE previews; one more is 409, replacing one is not', async () => {
    await putPreview(svc.url, previewKey, 'docs/app', 'lim-1', { index: '<p>1</p>' });
    await putPreview(svc.url, previewKey, 'docs/app', 'lim-2', { index: '<p>2</p>' });
    const names = (await call(svc.url, 'GET', '/api/sites/docs/app/previews', { user: 'bob' })).body.previews.map((p: any) => p.name);
    expect(names).toHaveLength(3);
    const over = await putPreview(svc.url, previewKey, 'docs/app', 'lim-3', { index: '<p>3</p>' });
    expect(over).toMatchObject({ status: 409, body: { code: 'conflict' } });
    expect((await putPreview(svc.url, previewKey, 'docs/app', 'lim-1', { index: '<p>1b</p>' })).status).toBe(200);
    await call(svc.url, 'DELETE', '/ingest/sites/docs/app/previews/lim-1', { key: previewKey });
    await call(svc.url, 'DELETE', '/ingest/sites/docs/app/previews/lim-2', { key: previewKey });
  });

  it('publishes a preview through an incremental deploy with "preview"', async () => {
    const files = { 'index.html': '<h1>deployed preview</h1>' };
    const created = await call(svc.url, 'POST', '/ingest/deploys', {
      key: previewKey,
      body: { meta: { group: 'docs', slug: 'app', title: 'PR 9' }, preview: 'pr-9', files: { 'index.html': sha(files['index.html']) } },
    });
    expect(created.status).toBe(201);
    expect(created.body.required).toEqual([sha(files['index.html'])]);
    const put = await fetch(new URL(`/ingest/deploys/${created.body.id}/files/${sha(files['index.html'])}`, svc.url), {
      method: 'PUT',
      headers: { Authorization: `Bearer ${previewKey}` },
      body: files['index.html'],
    });
    expect(put.status).toBe(204);
    const done = await call(svc.url, 'POST', `/ingest/deploys/${created.body.id}/publish`, { key: previewKey });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ preview: { name: 'pr-9', title: 'PR 9', url: pv('docs/app', 'pr-9') }, changes: { added: 0, changed: 1, removed: 3 } });
    expect(await text(pv('docs/app', 'pr-9'))).toBe('200 <h1>deployed preview</h1>');
    expect(await text(svc.siteUrl('docs/app'))).toBe('200 <h1>live</h1>');
    await call(svc.url, 'DELETE', '/ingest/sites/docs/app/previews/pr-9', { key: previewKey });
  });
});

describe('sites in a group named previews (spec §1’s own example) stay reachable', () => {
  it('DELETE …/docs/previews/pr-7 unpublishes the site docs/previews/pr-7 when it exists, else removes the preview pr-7 of docs', async () => {
    await publish(svc.url, admin, { group: 'docs/previews', slug: 'pr-7', title: 'old-style preview site' }, { index: '<p>old</p>' });
    await publish(svc.url, admin, { group: '', slug: 'docs', title: 'flat docs' }, { index: '<p>flat</p>' });
    expect((await putPreview(svc.url, admin, 'docs', 'pr-8', { index: '<p>flat pr-8</p>' })).status).toBe(200);
    // A key that may only preview cannot unpublish: its DELETE means the preview, and there is no preview pr-7.
    expect((await call(svc.url, 'DELETE', '/ingest/sites/docs/previews/pr-7', { key: previewKey })).status).toBe(404);
    expect(await text(svc.siteUrl('docs/previews/pr-7'))).toBe('200 <p>old</p>');
    // The site reading, for a key that may do both, because the site exists.
    expect((await call(svc.url, 'GET', '/api/sites/docs/previews/pr-7', { user: 'bob' })).status).toBe(200);
    expect((await call(svc.url, 'DELETE', '/ingest/sites/docs/previews/pr-7', { key: admin })).status).toBe(204);
    expect((await fetch(svc.siteUrl('docs/previews/pr-7'))).status).toBe(404);
    expect((await call(svc.url, 'GET', '/api/sites/deleted', { user: 'admin' })).body.sites.map((x: any) => `${x.group}/${x.slug}`)).toContain('docs/previews/pr-7');
    // No such site: the preview reading.
    expect(await text(pv('docs', 'pr-8'))).toBe('200 <p>flat pr-8</p>');
    expect((await call(svc.url, 'DELETE', '/ingest/sites/docs/previews/pr-8', { key: admin })).status).toBe(204);
    expect((await fetch(pv('docs', 'pr-8'))).status).toBe(404);
  });

  it('GET /api/sites/docs/app/previews is the site docs/app/previews when it exists, else the previews of docs/app', async () => {
    expect((await call(svc.url, 'GET', '/api/sites/docs/app/previews', { user: 'bob' })).body).toHaveProperty('previews');
    await publish(svc.url, admin, { group: 'docs/app', slug: 'previews', title: 'A site called previews' }, { index: '<p>p</p>' });
    expect((await call(svc.url, 'GET', '/api/sites/docs/app/previews', { user: 'bob' })).body).toMatchObject({ slug: 'previews', group: 'docs/app' });
    await call(svc.url, 'DELETE', '/ingest/sites/docs/app/previews', { key: admin });
    expect((await call(svc.url, 'GET', '/api/sites/docs/app/previews', { user: 'bob' })).body).toHaveProperty('previews');
  });
});

describe('serving previews and permalinks', () => {
  it('serves a preview with its own rules, noindex on every answer, and never the control plane', async () => {
    const files = {
      'index.html': '<h1>rules</h1>',
      '404.html': 'preview 404',
      _redirects: '/old /index.html 301\n',
      _headers: '/*\n  X-Robots-Tag: all\n  X-Frame-Options: SAMEORIGIN\n',
    };
    expect((await putPreview(svc.url, previewKey, 'docs/app', 'rules', { files })).status).toBe(200);
    const base = pv('docs/app', 'rules');
    const home = await fetch(base);
    expect(home.status).toBe(200);
    expect(home.headers.get('x-robots-tag')).toBe('noindex');
    expect(home.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(home.headers.get('x-content-type-options')).toBe('nosniff');
    const again = await fetch(base, { headers: { 'If-None-Match': home.headers.get('etag')! } });
    expect(again.status).toBe(304);
    expect(again.headers.get('x-robots-tag')).toBe('noindex');
    const old = await fetch(`${base}old`, { redirect: 'manual' });
    expect([old.status, old.headers.get('location'), old.headers.get('x-robots-tag')]).toEqual([301, '/index.html', 'noindex']);
    const missing = await fetch(`${base}nope`);
    expect([missing.status, await missing.text(), missing.headers.get('x-robots-tag')]).toEqual([404, 'preview 404', 'noindex']);
    for (const path of ['api/sites', 'ingest/sites', 'api/me', '']) {
      const r = await fetch(`${base}${path}`, { headers: { 'Remote-User': 'admin' } });
      expect(r.headers.get('content-type'), path).not.toMatch(/json/);
    }
    expect((await fetch(base, { method: 'POST' })).status).toBe(405);
    // The live host is indexable and untouched.
    const live = await fetch(svc.siteUrl('docs/app'));
    expect(live.headers.get('x-robots-tag')).toBeNull();
    // An unknown preview, or one of a site that does not exist: 404, noindex.
    for (const url of [pv('docs/app', 'nobody'), pv('docs/nothing', 'rules'), pv('app', 'rules')]) {
      const r = await fetch(url);
      expect([r.status, r.headers.get('x-robots-tag')], url).toEqual([404, 'noindex']);
    }
    await call(svc.url, 'DELETE', '/ingest/sites/docs/app/previews/rules', { key: previewKey });
    expect((await fetch(base)).status).toBe(404);
  });

  it('a page on a preview host cannot write to the control plane as the signed-in user', async () => {
    const r = await fetch(new URL('/api/keys', svc.url), {
      method: 'POST',
      headers: { 'Remote-User': 'admin', 'Content-Type': 'application/json', Origin: pv('docs/app', 'pr-2').slice(0, -1), 'Sec-Fetch-Site': 'same-site' },
      body: JSON.stringify({ name: 'stolen', admin: true }),
    });
    expect(r.status).toBe(403);
  });

  it('numbers revisions, answers their permalinks, and serves one while it is retained', async () => {
    const one = await publish(svc.url, admin, { group: 'perm', slug: 'site', title: 'P' }, { index: '<p>one</p>' });
    expect(one.body.permalink).toBe(variantUrl(svc.port, 'perm/site', 'v1'));
    const two = await publish(svc.url, admin, { group: 'perm', slug: 'site' }, { index: '<p>two</p>' });
    expect(two.body.permalink).toBe(variantUrl(svc.port, 'perm/site', 'v2'));
    // An unchanged publish answers the live revision's permalink.
    expect((await publish(svc.url, admin, { group: 'perm', slug: 'site' }, { index: '<p>two</p>' })).body).toMatchObject({ unchanged: true, permalink: two.body.permalink });
    const revs = (await call(svc.url, 'GET', '/api/sites/perm/site/revisions', { user: 'bob' })).body.revisions;
    expect(revs.map((r: any) => [r.number, r.url])).toEqual([
      [2, two.body.permalink],
      [1, one.body.permalink],
    ]);
    const v1 = await fetch(one.body.permalink);
    expect([v1.status, await v1.text(), v1.headers.get('x-robots-tag')]).toEqual([200, '<p>one</p>', 'noindex']);
    expect(await text(two.body.permalink)).toBe('200 <p>two</p>');
    expect((await fetch(variantUrl(svc.port, 'perm/site', 'v3'))).status).toBe(404);
    expect((await fetch(variantUrl(svc.port, 'perm/site', 'v01'))).status).toBe(404);

    // A rollback makes no new number; the live host serves v1 again, and v2 stays addressable.
    expect((await call(svc.url, 'POST', '/ingest/sites/perm/site/rollback', { key: admin })).status).toBe(200);
    expect(await text(two.body.permalink)).toBe('200 <p>two</p>');
    // KEEP=1: a third publish drops the revision archived longest ago (v2), whose permalink goes.
    const three = await publish(svc.url, admin, { group: 'perm', slug: 'site' }, { index: '<p>three</p>' });
    expect(three.body.permalink).toBe(variantUrl(svc.port, 'perm/site', 'v3'));
    expect((await fetch(two.body.permalink)).status).toBe(404);
    expect(await text(one.body.permalink)).toBe('200 <p>one</p>');

    // Quarantined: every permalink answers 404; purged and re-created: numbering starts again at 1.
    expect((await call(svc.url, 'DELETE', '/ingest/sites/perm/site', { key: admin })).status).toBe(204);
    expect((await fetch(three.body.permalink)).status).toBe(404);
    expect((await call(svc.url, 'POST', '/ingest/sites/perm/site/purge', { key: admin })).status).toBe(204);
    const reborn = await publish(svc.url, admin, { group: 'perm', slug: 'site', title: 'P' }, { index: '<p>reborn</p>' });
    expect(reborn.body.permalink).toBe(one.body.permalink);
    expect(await text(one.body.permalink)).toBe('200 <p>reborn</p>');
  });

  it('serves flat sites’ previews too (pr-3--demo.<base>)', async () => {
    await publish(svc.url, admin, { group: '', slug: 'demo', title: 'Demo' }, { index: '<p>demo</p>' });
    expect((await putPreview(svc.url, admin, 'demo', 'pr-3', { index: '<p>demo pr-3</p>' })).status).toBe(200);
    expect(await text(`http://pr-3--demo.localhost:${svc.port}/`)).toBe('200 <p>demo pr-3</p>');
    expect(await text(`http://v1--demo.localhost:${svc.port}/`)).toBe('200 <p>demo</p>');
  });
});

describe('previews beside the site', () => {
  it('stay out of the listing; Site counts them; the API lists them for anyone signed in (hidden sites: admins)', async () => {
    await publish(svc.url, admin, { group: 'docs', slug: 'secret', title: 'S', hidden: true }, { index: '<p>s</p>' });
    await putPreview(svc.url, previewKey, 'docs/secret', 'pr-1', { index: '<p>s1</p>' });
    const list = await call(svc.url, 'GET', '/api/sites?hidden=true&limit=500', { user: 'admin' });
    expect(list.body.sites.map((s: any) => s.url).filter((u: string) => u.includes('--'))).toEqual([]);
    const app = list.body.sites.find((s: any) => s.slug === 'app' && s.group === 'docs');
    expect(app.previews).toBeGreaterThanOrEqual(1);
    expect(list.body.count).toBe(list.body.sites.length);
    expect((await call(svc.url, 'GET', '/api/sites/docs/secret/previews', { user: 'bob' })).status).toBe(404);
    expect((await call(svc.url, 'GET', '/api/sites/docs/secret/previews', { user: 'admin' })).body.previews).toHaveLength(1);
    expect((await call(svc.url, 'DELETE', '/api/sites/docs/secret/previews/pr-1', { user: 'bob' })).status).toBe(403);
  });

  it('compares preview:<name> with live in the diff view', async () => {
    const site = (await call(svc.url, 'GET', '/api/sites/docs/app', { user: 'bob' })).body;
    expect(site.previews).toBeGreaterThanOrEqual(1);
    const d = await call(svc.url, 'GET', '/api/sites/docs/app/revisions/current/diff/preview:pr-2', { user: 'bob' });
    expect(d.status).toBe(200);
    expect(d.body.added.map((f: any) => f.path)).toEqual(['b.html', 'new/index.html']);
    expect(d.body.removed.map((f: any) => f.path)).toEqual(['gone.html']);
    expect((await call(svc.url, 'GET', '/api/sites/docs/app/revisions/preview:nobody/diff/current', { user: 'bob' })).status).toBe(404);
  });

  it('go offline with the site, come back with restore, and die with purge (their files collected)', async () => {
    await publish(svc.url, admin, { group: 'docs', slug: 'life', title: 'L' }, { index: '<p>life</p>' });
    const only = '<p>only in the preview</p>';
    await putPreview(svc.url, previewKey, 'docs/life', 'pr-1', { index: only });
    expect(await stored(svc.dataDir, only)).toBe(true);
    expect((await call(svc.url, 'DELETE', '/ingest/sites/docs/life', { key: admin })).status).toBe(204);
    expect((await fetch(pv('docs/life', 'pr-1'))).status).toBe(404);
    expect((await putPreview(svc.url, previewKey, 'docs/life', 'pr-2', { index: '<p>x</p>' })).status).toBe(404);
    expect((await call(svc.url, 'GET', '/ingest/sites/docs/life/previews', { key: previewKey })).status).toBe(404);
    expect((await call(svc.url, 'POST', '/ingest/sites/docs/life/restore', { key: admin })).status).toBe(200);
    expect(await text(pv('docs/life', 'pr-1'))).toBe(`200 ${only}`);
    await call(svc.url, 'DELETE', '/ingest/sites/docs/life', { key: admin });
    expect((await call(svc.url, 'POST', '/ingest/sites/docs/life/purge', { key: admin })).status).toBe(204);
    expect(await stored(svc.dataDir, only)).toBe(false);
    await publish(svc.url, admin, { group: 'docs', slug: 'life', title: 'L' }, { index: '<p>life</p>' });
    expect((await call(svc.url, 'GET', '/ingest/sites/docs/life/previews', { key: previewKey })).body.previews).toEqual([]);
  });

  it('garbage collection keeps what a preview holds and collects what only it held', async () => {
    const shared = '<p>shared with live</p>';
    await publish(svc.url, admin, { group: 'docs', slug: 'gc', title: 'G' }, { files: { 'index.html': shared } });
    const mine = '<p>preview only</p>';
    await putPreview(svc.url, previewKey, 'docs/gc', 'pr-1', { files: { 'index.html': shared, 'mine.html': mine } });
    // Replacing the live site no longer holds `shared` there: the preview still does.
    await publish(svc.url, admin, { group: 'docs', slug: 'gc' }, { files: { 'index.html': '<p>v2</p>' } });
    await publish(svc.url, admin, { group: 'docs', slug: 'gc' }, { files: { 'index.html': '<p>v3</p>' } });
    expect(await stored(svc.dataDir, shared)).toBe(true);
    expect(await text(pv('docs/gc', 'pr-1'))).toBe(`200 ${shared}`);
    // Another push of the preview drops its old content: what only it held goes.
    await putPreview(svc.url, previewKey, 'docs/gc', 'pr-1', { files: { 'index.html': '<p>pushed</p>' } });
    expect(await stored(svc.dataDir, mine)).toBe(false);
    expect(await stored(svc.dataDir, shared)).toBe(false);
    await call(svc.url, 'DELETE', '/ingest/sites/docs/gc/previews/pr-1', { key: previewKey });
    expect(await stored(svc.dataDir, '<p>pushed</p>')).toBe(false);
    expect(await stored(svc.dataDir, '<p>v3</p>')).toBe(true);
  });

  it('answers /tls/ask for live previews and retained permalinks only', async () => {
    const ask = async (host: string) => (await fetch(new URL(`/tls/ask?domain=${host}`, svc.url))).status;
    await putPreview(svc.url, previewKey, 'docs/app', 'tls', { index: '<p>tls</p>' });
    expect(await ask('tls--app.docs.localhost')).toBe(200);
    expect(await ask('v1--app.docs.localhost')).toBe(200);
    expect(await ask('v9--app.docs.localhost')).toBe(404);
    expect(await ask('nobody--app.docs.localhost')).toBe(404);
    await call(svc.url, 'DELETE', '/ingest/sites/docs/app/previews/tls', { key: previewKey });
    expect(await ask('tls--app.docs.localhost')).toBe(404);
  });
});

describe('preview expiry', () => {
  let short: RunningService;
  beforeAll(async () => {
    short = await startService({ env: { SITES_PREVIEW_TTL: '2s' } });
  });
  afterAll(() => short?.stop());

  it('a preview stops being served when it expires, and the service removes it with PreviewExpired and collects its files', async () => {
    const key = await short.createKey(['--name', 'ci', '--grant', ':preview']);
    const adminKey = await short.createKey(['--name', 'admin', '--admin']);
    await publish(short.url, adminKey, { group: 'docs', slug: 'app', title: 'A' }, { index: '<p>live</p>' });
    const only = '<p>short-lived</p>';
    const r = await putPreview(short.url, key, 'docs/app', 'pr-1', { index: only });
    expect(Date.parse(r.body.preview.expires_at) - Date.parse(r.body.preview.updated_at)).toBeGreaterThan(1000);
    const url = variantUrl(short.port, 'docs/app', 'pr-1');
    expect(await text(url)).toBe(`200 ${only}`);
    const deadline = Date.now() + 10_000;
    let log: any[] = [];
    while (Date.now() < deadline) {
      log = (await call(short.url, 'GET', '/api/sites/docs/app/events', { user: 'admin' })).body.events;
      if (log.some((e) => e.type === 'PreviewExpired')) break;
      await new Promise((done) => setTimeout(done, 200));
    }
    expect(log.find((e) => e.type === 'PreviewExpired')).toMatchObject({ actor: { kind: 'system' }, data: { name: 'pr-1' } });
    expect((await fetch(url)).status).toBe(404);
    expect((await call(short.url, 'GET', '/api/sites/docs/app/previews', { user: 'admin' })).body.previews).toEqual([]);
    // The files are collected after the event, by the same job: wait for it rather than race it.
    const collectedBy = Date.now() + 10_000;
    while ((await stored(short.dataDir, only)) && Date.now() < collectedBy) await new Promise((done) => setTimeout(done, 200));
    expect(await stored(short.dataDir, only)).toBe(false);
    expect(await text(short.siteUrl('docs/app'))).toBe('200 <p>live</p>');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countBlobs } from '../support/blobs.ts';
import { call, text } from '../support/http.ts';
import { publish } from '../support/publish.ts';
import { startService, type RunningService } from '../support/service.ts';

let svc: RunningService;
let admin: string;

const v = (n: string) => ({ 'index.html': `<h1>${n}</h1>`, [`only-${n}.txt`]: n });


beforeAll(async () => {
  svc = await startService({ env: { SITES_VERSIONING_KEEP: '3' } });
  admin = await svc.createKey(['--name', 'admin', '--admin']);
});
afterAll(() => svc?.stop());

describe('versioning and rollback', () => {
  it('archives on replace, rolls back by swapping, and twice returns to the start', async () => {
    for (const n of ['v1', 'v2', 'v3']) {
      const r = await publish(svc.url, admin, { group: 'ver', slug: 'site', title: 'Versioned' }, { files: v(n) });
      expect(r.status).toBe(200);
    }
    const revs = (await call(svc.url, 'GET', '/ingest/sites/ver/site/revisions', { key: admin })).body.revisions;
    expect(revs.map((r: any) => r.current)).toEqual([true, false, false]);
    expect(revs.map((r: any) => r.id)).toEqual([...revs.map((r: any) => r.id)].sort().reverse());
    expect(await text(svc.siteUrl('ver/site'))).toBe('200 <h1>v3</h1>');

    const back = await call(svc.url, 'POST', '/ingest/sites/ver/site/rollback', { key: admin });
    expect(back.status).toBe(200);
    expect(await text(svc.siteUrl('ver/site'))).toBe('200 <h1>v2</h1>');
    const after1 = (await call(svc.url, 'GET', '/ingest/sites/ver/site/revisions', { key: admin })).body.revisions;
    expect(after1.map((r: any) => r.id)).toEqual([revs[1].id, revs[0].id, revs[2].id]);

    expect((await call(svc.url, 'POST', '/ingest/sites/ver/site/rollback', { key: admin })).status).toBe(200);
    expect(await text(svc.siteUrl('ver/site'))).toBe('200 <h1>v3</h1>');
    const after2 = (await call(svc.url, 'GET', '/ingest/sites/ver/site/revisions', { key: admin })).body.revisions;
    expect(after2.map((r: any) => r.id)).toEqual(revs.map((r: any) => r.id));
  });

  it('rolls back to a named revision after several publishes, and `current` is a no-op', async () => {
    const first = (await call(svc.url, 'GET', '/api/sites/ver/site/revisions', { key: admin })).body.revisions;
    const v1 = first.find((r: any) => !r.current && r.id === first[first.length - 1].id);
    const r = await call(svc.url, 'POST', '/api/sites/ver/site/rollback', { user: 'admin', body: { revision: v1.id } });
    expect(r.status).toBe(200);
    expect(await text(svc.siteUrl('ver/site'))).toBe('200 <h1>v1</h1>');
    expect(await text(`${svc.siteUrl('ver/site')}only-v1.txt`)).toBe('200 v1');
    expect((await fetch(`${svc.siteUrl('ver/site')}only-v3.txt`)).status).toBe(404);
    expect((await call(svc.url, 'POST', '/ingest/sites/ver/site/rollback', { key: admin, body: { revision: 'current' } })).status).toBe(200);
    expect(await text(svc.siteUrl('ver/site'))).toBe('200 <h1>v1</h1>');
    const unknown = await call(svc.url, 'POST', '/ingest/sites/ver/site/rollback', { key: admin, body: { revision: '20000101T000000.000000000Z' } });
    expect(unknown.status).toBe(404);
    expect((await call(svc.url, 'POST', '/ingest/sites/ver/site/rollback', { key: admin, body: { revision: 'nope' } })).status).toBe(400);
  });

  it('drops the revision archived longest ago beyond KEEP, and deletes its unreferenced files', async () => {
    for (const n of ['k1', 'k2', 'k3', 'k4', 'k5']) {
      expect((await publish(svc.url, admin, { group: 'ver', slug: 'keep', title: 'Keep' }, { files: v(n) })).status).toBe(200);
    }
    const revs = (await call(svc.url, 'GET', '/api/sites/ver/keep/revisions', { key: admin })).body.revisions;
    expect(revs).toHaveLength(4); // live + KEEP=3 archived
    const events = (await call(svc.url, 'GET', '/api/sites/ver/keep/events', { user: 'admin' })).body.events;
    expect(events.filter((e: any) => e.type === 'RevisionDropped')).toHaveLength(1);
    const before = await countBlobs(svc.dataDir);
    expect((await publish(svc.url, admin, { group: 'ver', slug: 'keep' }, { files: v('k6') })).status).toBe(200);
    // +2 files +1 manifest for k6; -2 files -1 manifest for the dropped k2
    expect(await countBlobs(svc.dataDir)).toBe(before);
  });

  it('ids strictly increase even for publishes in the same millisecond', async () => {
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await publish(svc.url, admin, { group: 'ver', slug: 'fast', title: 'F' }, { index: `<p>${i}</p>` }));
    const ids = results.map((r) => r.body.revision);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('lifecycle transitions', () => {
  it('unpublish takes the site offline at once, restore brings it back exactly', async () => {
    await publish(svc.url, admin, { group: 'life', slug: 'a', title: 'A', tags: ['t'] }, { files: v('a1') });
    expect((await call(svc.url, 'DELETE', '/ingest/sites/life/a', { key: admin })).status).toBe(204);
    expect((await fetch(svc.siteUrl('life/a'))).status).toBe(404);
    expect((await call(svc.url, 'GET', '/api/sites/life/a', { key: admin })).status).toBe(404);
    const trash = (await call(svc.url, 'GET', '/api/sites/deleted', { user: 'admin' })).body;
    expect(trash.sites.find((s: any) => s.slug === 'a' && s.group === 'life')).toMatchObject({ deleted_at: expect.any(String) });
    const restored = await call(svc.url, 'POST', '/ingest/sites/life/a/restore', { key: admin });
    expect(restored.status).toBe(200);
    expect(restored.body.deleted_at).toBeUndefined();
    expect(restored.body.tags).toEqual(['t']);
    expect(await text(svc.siteUrl('life/a'))).toBe('200 <h1>a1</h1>');
  });

  it('answers illegal transitions with 404 or 409', async () => {
    await publish(svc.url, admin, { group: 'life', slug: 'b', title: 'B' }, { files: v('b1') });
    expect((await call(svc.url, 'POST', '/ingest/sites/life/b/purge', { key: admin })).status).toBe(404); // live
    expect((await call(svc.url, 'POST', '/ingest/sites/life/b/restore', { key: admin })).status).toBe(404); // live
    expect((await call(svc.url, 'POST', '/ingest/sites/life/b/rollback', { key: admin })).status).toBe(409); // nothing archived
    await call(svc.url, 'DELETE', '/ingest/sites/life/b', { key: admin });
    expect((await call(svc.url, 'POST', '/ingest/sites/life/b/rollback', { key: admin })).status).toBe(404); // quarantined
    expect((await call(svc.url, 'PATCH', '/ingest/sites/life/b', { key: admin, body: { title: 'x' } })).status).toBe(404);
    expect((await call(svc.url, 'DELETE', '/ingest/sites/life/b', { key: admin })).status).toBe(404);
    expect((await call(svc.url, 'POST', '/ingest/sites/life/b/purge', { key: admin })).status).toBe(204);
    expect((await call(svc.url, 'PATCH', '/ingest/sites/life/b', { key: admin, body: { title: 'x' } })).status).toBe(404); // purged
    expect((await call(svc.url, 'POST', '/ingest/sites/life/b/restore', { key: admin })).status).toBe(404);
    expect((await call(svc.url, 'GET', '/api/sites/deleted', { user: 'admin' })).body.sites.some((s: any) => s.slug === 'b')).toBe(false);
  });

  it('re-creating a purged path starts a new site id', async () => {
    const first = await publish(svc.url, admin, { group: 'life', slug: 'c', title: 'C' }, { files: v('c1') });
    await call(svc.url, 'DELETE', '/ingest/sites/life/c', { key: admin });
    await call(svc.url, 'POST', '/ingest/sites/life/c/purge', { key: admin });
    const again = await publish(svc.url, admin, { group: 'life', slug: 'c', title: 'C again' }, { files: v('c3') });
    expect(again.body.site.id).not.toBe(first.body.site.id);
    const history = (await call(svc.url, 'GET', '/api/sites/life/c/events', { user: 'admin' })).body.events;
    expect(history.map((e: any) => e.type)).toEqual(['SitePublished', 'SiteQuarantined', 'SitePurged', 'SitePublished']);
    expect(history[0].actor).toMatchObject({ kind: 'key', name: 'admin' });
  });

  it('patch edits metadata; null clears an optional field; unknown fields are refused', async () => {
    await publish(svc.url, admin, { group: 'life', slug: 'd', title: 'D', description: 'old' }, { files: v('d') });
    const r = await call(svc.url, 'PATCH', '/ingest/sites/life/d', { key: admin, body: { title: 'New', description: null, tags: ['a', 'b'], hidden: true } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ title: 'New', tags: ['a', 'b'], hidden: true });
    expect(r.body.description).toBe(''); // spec §3: always present, "" when unset
    expect((await call(svc.url, 'PATCH', '/ingest/sites/life/d', { key: admin, body: { colour: 'red' } })).status).toBe(400);
    expect((await call(svc.url, 'PATCH', '/ingest/sites/life/d', { key: admin, raw: '{bad' })).status).toBe(400);
    expect((await call(svc.url, 'PATCH', '/api/sites/life/d', { user: 'admin', body: { hidden: false } })).body.hidden).toBe(false);
  });

  it('purge deletes exactly the files no other site references', async () => {
    const shared = { 'index.html': '<h1>shared</h1>', 'lib.js': 'console.log("shared")' };
    await publish(svc.url, admin, { group: 'gc', slug: 'one', title: '1' }, { files: { ...shared, 'mine1.txt': 'only in one' } });
    await publish(svc.url, admin, { group: 'gc', slug: 'two', title: '2' }, { files: { ...shared, 'mine2.txt': 'only in two' } });
    const before = await countBlobs(svc.dataDir);
    await call(svc.url, 'DELETE', '/api/sites/gc/one', { user: 'admin' });
    expect((await call(svc.url, 'DELETE', '/api/sites/deleted/gc/one', { user: 'admin' })).status).toBe(204);
    expect(await countBlobs(svc.dataDir)).toBe(before - 2); // mine1.txt and one's manifest
    expect(await text(`${svc.siteUrl('gc/two')}lib.js`)).toBe('200 console.log("shared")');
    expect(await text(svc.siteUrl('gc/two'))).toBe('200 <h1>shared</h1>');
  });
});

describe('a publish never destroys the trash or churns history (spec §4)', () => {
  const eventsOf = async (path: string) => (await call(svc.url, 'GET', `/api/sites/${path}/events`, { user: 'admin' })).body.events as any[];

  it('a CI key republishing a path an admin put in the trash gets 409 and the trash keeps the site', async () => {
    const ci = await svc.createKey(['--name', 'legal-ci', '--grant', 'legal:publish']);
    expect((await publish(svc.url, admin, { group: 'legal', slug: 'terms', title: 'Terms' }, { files: v('original') })).status).toBe(200);
    expect((await call(svc.url, 'DELETE', '/api/sites/legal/terms', { user: 'admin' })).status).toBe(204);
    const history = await eventsOf('legal/terms');
    const blobs = await countBlobs(svc.dataDir);

    const refused = await publish(svc.url, ci, { group: 'legal', slug: 'terms', title: 'Overwritten' }, { files: v('by-ci') });
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({ error: 'legal/terms is in the trash: restore it or purge it first', code: 'conflict' });
    // The portal's upload (an admin) is refused the same way.
    const upload = await publish(svc.url, undefined, { group: 'legal', slug: 'terms' }, { index: '<p>portal</p>' }, '/api/sites', { 'Remote-User': 'admin' });
    expect(upload.status).toBe(409);
    expect(upload.body.code).toBe('conflict');

    expect(await eventsOf('legal/terms')).toEqual(history);
    expect(await countBlobs(svc.dataDir)).toBe(blobs);
    const trash = (await call(svc.url, 'GET', '/api/sites/deleted', { user: 'admin' })).body.sites;
    expect(trash.find((s: any) => s.group === 'legal' && s.slug === 'terms')).toMatchObject({ title: 'Terms' });
    expect((await call(svc.url, 'POST', '/api/sites/deleted/legal/terms', { user: 'admin' })).status).toBe(200);
    expect(await text(svc.siteUrl('legal/terms'))).toBe('200 <h1>original</h1>');
  });

  it('re-running a CI job with the same files records nothing and keeps the real rollback targets', async () => {
    const meta = { group: 'ci', slug: 'rerun', title: 'Rerun', tags: ['x'] };
    const first = await publish(svc.url, admin, meta, { files: v('one') });
    const second = await publish(svc.url, admin, meta, { files: v('two') });
    expect(second.body.unchanged).toBe(false);
    const history = await eventsOf('ci/rerun');
    for (let run = 0; run < 5; run++) {
      const again = await publish(svc.url, admin, meta, { files: v('two') });
      expect(again.status).toBe(200);
      expect(again.body).toMatchObject({ unchanged: true, revision: second.body.revision, updated_at: second.body.updated_at });
      expect(again.body.site).toEqual(second.body.site);
    }
    expect(await eventsOf('ci/rerun')).toEqual(history);
    const revisions = (await call(svc.url, 'GET', '/ingest/sites/ci/rerun/revisions', { key: admin })).body.revisions;
    expect(revisions.map((r: any) => r.id)).toEqual([second.body.revision, first.body.revision]);
    expect((await call(svc.url, 'POST', '/ingest/sites/ci/rerun/rollback', { key: admin })).status).toBe(200);
    expect(await text(svc.siteUrl('ci/rerun'))).toBe('200 <h1>one</h1>');
  });

  it('the same files with new meta record only the metadata change, as a patch', async () => {
    const meta = { group: 'ci', slug: 'meta', title: 'Before' };
    const first = await publish(svc.url, admin, meta, { files: v('m') });
    const renamed = await publish(svc.url, admin, { ...meta, title: 'After', description: 'new' }, { files: v('m') });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ unchanged: false, revision: first.body.revision, site: { title: 'After', description: 'new' } });
    expect((await eventsOf('ci/meta')).map((e) => e.type)).toEqual(['SitePublished', 'SitePatched']);
    expect((await call(svc.url, 'GET', '/api/sites/ci/meta/revisions', { key: admin })).body.revisions).toHaveLength(1);
    // Meta fields that change nothing are nothing.
    const same = await publish(svc.url, admin, { group: 'ci', slug: 'meta', title: 'After' }, { files: v('m') });
    expect(same.body).toMatchObject({ unchanged: true, updated_at: renamed.body.updated_at });
  });
});

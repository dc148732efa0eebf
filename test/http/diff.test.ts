/**
 * Spec §12: any two revisions compared by content hash, the counts on publish and rollback
 * events, and what the retained revisions cost against what the store holds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../support/http.ts';
import { publish } from '../support/publish.ts';
import { startService, type RunningService } from '../support/service.ts';

let svc: RunningService;
let admin: string;
let ids: string[] = [];
const big = 'x'.repeat(10_000);

beforeAll(async () => {
  svc = await startService();
  admin = await svc.createKey(['--name', 'admin', '--admin']);
  const v1 = { 'index.html': '<p>v1</p>', 'a.css': 'a{}', 'keep.txt': big, 'gone.txt': 'bye' };
  const v2 = { 'index.html': '<p>version 2</p>', 'a.css': 'a{}', 'keep.txt': big, 'new/b.js': 'let b = 1;' };
  expect((await publish(svc.url, admin, { group: 'audit', slug: 'site', title: 'Audit' }, { files: v1 })).status).toBe(200);
  expect((await publish(svc.url, admin, { group: 'audit', slug: 'site' }, { files: v2 })).status).toBe(200);
  ids = (await call(svc.url, 'GET', '/api/sites/audit/site/revisions', { user: 'viewer' })).body.revisions.map((r: { id: string }) => r.id);
});
afterAll(() => svc?.stop());

describe('revision differences', () => {
  it('compares two revisions by content hash, lists sorted, current resolved', async () => {
    const [live, old] = ids;
    const res = await call(svc.url, 'GET', `/api/sites/audit/site/revisions/${old}/diff/current`, { user: 'viewer' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      from: old,
      to: live,
      added: [{ path: 'new/b.js', size: 10 }],
      removed: [{ path: 'gone.txt', size: 3 }],
      changed: [{ path: 'index.html', size_before: 9, size_after: 16 }],
      unchanged: 2,
      bytes_added: 26,
      bytes_removed: 12,
    });
    const back = await call(svc.url, 'GET', `/api/sites/audit/site/revisions/current/diff/${old}`, { user: 'viewer' });
    expect(back.body).toMatchObject({ from: live, to: old, added: [{ path: 'gone.txt', size: 3 }], removed: [{ path: 'new/b.js', size: 10 }] });
    const same = await call(svc.url, 'GET', '/api/sites/audit/site/revisions/current/diff/current', { user: 'viewer' });
    expect(same.body).toMatchObject({ added: [], removed: [], changed: [], unchanged: 4, bytes_added: 0, bytes_removed: 0 });
  });

  it('answers 404 for an unknown revision or site, 400 for a bad id, and hides hidden sites from viewers', async () => {
    expect((await call(svc.url, 'GET', '/api/sites/audit/site/revisions/20200101T000000.000000000Z/diff/current', { user: 'viewer' })).status).toBe(404);
    expect((await call(svc.url, 'GET', '/api/sites/audit/nope/revisions/current/diff/current', { user: 'viewer' })).status).toBe(404);
    expect((await call(svc.url, 'GET', '/api/sites/audit/site/revisions/current/diff/current')).status).toBe(401);
    await publish(svc.url, admin, { group: 'audit', slug: 'secret', title: 'S', hidden: true }, { index: 'x' });
    expect((await call(svc.url, 'GET', '/api/sites/audit/secret/revisions/current/diff/current', { user: 'viewer' })).status).toBe(404);
    expect((await call(svc.url, 'GET', '/api/sites/audit/secret/revisions/current/diff/current', { user: 'admin' })).status).toBe(200);
  });

  it('puts the counts on publish and rollback events, so the history reads as a changelog', async () => {
    const events = (await call(svc.url, 'GET', '/api/sites/audit/site/events', { user: 'admin' })).body.events as { type: string; data: Record<string, unknown> }[];
    const published = events.filter((e) => e.type === 'SitePublished');
    expect(published[0]!.data).toMatchObject({ filesAdded: 4, filesChanged: 0, filesRemoved: 0, bytesAdded: 10_015, bytesRemoved: 0 });
    expect(published[1]!.data).toMatchObject({ filesAdded: 1, filesChanged: 1, filesRemoved: 1, bytesAdded: 26, bytesRemoved: 12 });
    expect((await call(svc.url, 'POST', '/api/sites/audit/site/rollback', { user: 'admin', body: {} })).status).toBe(200);
    const after = (await call(svc.url, 'GET', '/api/sites/audit/site/events', { user: 'admin' })).body.events as { type: string; data: Record<string, unknown> }[];
    expect(after.find((e) => e.type === 'SiteRolledBack')!.data).toMatchObject({ filesAdded: 1, filesChanged: 1, filesRemoved: 1, bytesAdded: 12, bytesRemoved: 26 });
    expect((await call(svc.url, 'POST', '/api/sites/audit/site/rollback', { user: 'admin', body: {} })).status).toBe(200);
  });
});

describe('storage', () => {
  it('shows what a site’s retained revisions cost against what the store holds', async () => {
    const res = await call(svc.url, 'GET', '/api/sites/audit/site/revisions', { user: 'viewer' });
    // v1 = 10,015 bytes, v2 = 10,029; shared: a.css (3) and keep.txt (10,000) stored once.
    expect(res.body).toMatchObject({ logical_bytes: 20_044, stored_bytes: 10_015 + 16 + 10 });
  });

  it('adds them up for the whole service, for admins only', async () => {
    const res = await call(svc.url, 'GET', '/api/storage', { user: 'admin' });
    expect(res.status).toBe(200);
    expect(res.body.sites).toBe(2);
    expect(res.body.revisions).toBe(3);
    expect(res.body.stored_bytes).toBeLessThan(res.body.logical_bytes);
    expect((await call(svc.url, 'GET', '/api/storage', { user: 'viewer' })).status).toBe(403);
  });
});

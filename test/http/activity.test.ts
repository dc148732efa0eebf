/**
 * `GET /api/events` (spec §16) on the real service: every filter, cursor pages that stay
 * right while events are appended, the NDJSON export, admins only, no secrets.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../support/http.ts';
import { publish } from '../support/publish.ts';
import { startService, type RunningService } from '../support/service.ts';

let svc: RunningService;
let admin: string;
let adminKeyId: number;
let ci: string;
let ciKeyId: number;
let middle: string;

const events = (query: string, opts: { key?: string; user?: string } = { key: admin }) => call(svc.url, 'GET', `/api/events${query}`, opts);

beforeAll(async () => {
  svc = await startService();
  admin = await svc.createKey(['--name', 'root', '--admin']);
  adminKeyId = (await call(svc.url, 'GET', '/api/keys', { key: admin })).body.keys.find((k: any) => k.name === 'root').id;
  const made = await call(svc.url, 'POST', '/api/keys', { key: admin, body: { name: 'ci', grants: [{ kind: 'group', target: 'docs', permissions: ['publish', 'patch'] }] } });
  ci = made.body.key;
  ciKeyId = made.body.id;
  await publish(svc.url, ci, { group: 'docs', slug: 'app', title: 'App' }, { index: '<p>1</p>' });
  await publish(svc.url, ci, { group: 'docs/sub', slug: 'deep', title: 'Deep' }, { index: '<p>1</p>' });
  await new Promise((r) => setTimeout(r, 20));
  middle = new Date().toISOString();
  await new Promise((r) => setTimeout(r, 20));
  await publish(svc.url, admin, { group: 'other', slug: 'app', title: 'Other' }, { index: '<p>1</p>' });
  await publish(svc.url, admin, { group: '', slug: 'docs', title: 'Flat' }, { index: '<p>1</p>' });
  // A change by a signed-in person (forward auth), not a key.
  expect((await call(svc.url, 'PATCH', '/api/sites/docs/app', { user: 'admin', body: { title: 'App 2' } })).status).toBe(200);
}, 60_000);
afterAll(() => svc?.stop());

describe('GET /api/events', () => {
  it('lists every change of the service newest first, with its actor and site, and no secrets', async () => {
    const r = await events('');
    expect(r.status).toBe(200);
    const types = r.body.events.map((e: any) => e.type);
    expect(types.slice(0, 5)).toEqual(['SitePatched', 'SitePublished', 'SitePublished', 'SitePublished', 'SitePublished']);
    expect(types).toContain('KeyIssued');
    expect(types).not.toContain('IdAllocated');
    const patched = r.body.events[0];
    expect(patched).toMatchObject({ type: 'SitePatched', site: 'docs/app', actor: { kind: 'user', name: 'admin' }, data: { meta: { title: 'App 2' } } });
    const ids = r.body.events.map((e: any) => Number(e.id));
    expect([...ids].sort((a, b) => b - a)).toEqual(ids);
    const text = JSON.stringify(r.body);
    expect(text).not.toMatch(/tokenHash|refreshTokenHash|"secret"/);
    expect(text).not.toContain(ci.slice(4));
  });

  it('filters by actor, type, site subtree and time, and combines them', async () => {
    const byKey = await events(`?actor=key:${ciKeyId}`);
    expect(byKey.body.events.map((e: any) => [e.type, e.site])).toEqual([
      ['SitePublished', 'docs/sub/deep'],
      ['SitePublished', 'docs/app'],
    ]);
    const byUser = await events('?actor=admin');
    expect(byUser.body.events.map((e: any) => e.type)).toEqual(['SitePatched']);
    const byRoot = await events(`?actor=key:${adminKeyId}`);
    expect(byRoot.body.events.map((e: any) => e.type)).toEqual(['SitePublished', 'SitePublished', 'KeyIssued']);

    const published = await events('?type=SitePublished');
    expect(published.body.events).toHaveLength(4);
    const either = await events('?type=SitePatched,KeyIssued');
    expect(either.body.events.map((e: any) => e.type).sort()).toEqual(['KeyIssued', 'KeyIssued', 'SitePatched']); // root's and ci's
    // The webhook spelling names the same events.
    expect((await events('?type=site.published,site.patched')).body.events).toHaveLength(5);

    // A group and its subtree, as grants read a target: docs/app, docs/sub/deep and the flat site "docs".
    const docs = await events('?site=docs');
    expect(new Set(docs.body.events.map((e: any) => e.site))).toEqual(new Set(['docs/app', 'docs/sub/deep', 'docs']));
    expect((await events('?site=docs/app')).body.events.map((e: any) => e.type)).toEqual(['SitePatched', 'SitePublished']);
    expect((await events('?site=docs/sub')).body.events.map((e: any) => e.site)).toEqual(['docs/sub/deep']);
    expect((await events('?site=nothing/here')).body.events).toEqual([]);

    const since = await events(`?since=${middle}`);
    expect(since.body.events.map((e: any) => e.site)).toEqual(['docs/app', 'docs', 'other/app']);
    const until = await events(`?until=${middle}&type=SitePublished`);
    expect(until.body.events.map((e: any) => e.site)).toEqual(['docs/sub/deep', 'docs/app']);
    const combined = await events(`?since=${middle}&site=docs&type=SitePublished`);
    expect(combined.body.events.map((e: any) => e.site)).toEqual(['docs']);
    expect((await events('?until=2000-01-01')).body.events).toEqual([]);
  });

  it('pages with a cursor that stays right while events are appended', async () => {
    const all = (await events('?limit=500')).body.events.map((e: any) => e.id);
    const seen: string[] = [];
    let cursor: string | undefined;
    let appended = 0;
    for (;;) {
      const page = await events(`?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(page.status).toBe(200);
      seen.push(...page.body.events.map((e: any) => e.id));
      // Something happens between two pages: newer events, which must not shift the pages.
      await publish(svc.url, admin, { group: 'busy', slug: `s${appended++}`, title: 'Busy' }, { index: '<p>x</p>' });
      if (!page.body.next) break;
      expect(page.body.events).toHaveLength(3);
      cursor = page.body.next;
    }
    expect(seen).toEqual(all);
    expect((await events('?cursor=not-a-cursor')).status).toBe(400);
  });

  it('exports every matching event as JSON lines, oldest first, without a page limit', async () => {
    const res = await fetch(`${svc.url}/api/events?type=SitePublished`, { headers: { Authorization: `Bearer ${admin}`, Accept: 'application/x-ndjson' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    const lines = (await res.text()).trim().split('\n').map((l) => JSON.parse(l));
    const page = (await events('?type=SitePublished&limit=500')).body.events;
    expect(lines.map((e) => e.id)).toEqual(page.map((e: any) => e.id).reverse());
    expect(lines.length).toBeGreaterThanOrEqual(5);
    const refused = await fetch(`${svc.url}/api/events`, { headers: { Authorization: `Bearer ${ci}`, Accept: 'application/x-ndjson' } });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ code: 'forbidden' });
  });

  it('is for admins only and refuses bad filters with 400', async () => {
    expect((await events('', { key: ci })).status).toBe(403);
    expect((await events('', {})).status).toBe(401);
    expect((await events('', { user: 'someone' })).status).toBe(403);
    expect((await events('', { user: 'admin' })).status).toBe(200);
    for (const q of ['?limit=0', '?limit=501', '?since=yesterday', '?until=2026-13-45', '?site=Docs/', '?type=site.exploded', '?type=not+a+type']) {
      const r = await events(q);
      expect(r.status, q).toBe(400);
      expect(r.body.code).toBe('invalid');
    }
  });
});

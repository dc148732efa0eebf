/**
 * The wire shapes the portal of the publisher we follow (gotifacts, `web/src/api.ts`)
 * reads unconditionally, pinned as schemas: its `Site`, `TreeNode`, `ApiKey` and the
 * requests its modals send. A field it iterates or trims without a check must always be
 * there, or its React views render a blank page.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { call } from '../support/http.ts';
import { publish } from '../support/publish.ts';
import { startService, type RunningService } from '../support/service.ts';

const Site = z.object({
  id: z.number().int(),
  group: z.string(),
  slug: z.string(),
  title: z.string(),
  description: z.string(),
  date: z.string().optional(),
  tags: z.array(z.string()),
  repo: z.string().optional(),
  preview: z.string().optional(),
  hidden: z.boolean(),
  size: z.number(),
  created_at: z.string(),
  updated_at: z.string(),
  deleted_at: z.string().optional(),
});
type TreeNodeShape = { name: string; path: string; site?: unknown; groups: TreeNodeShape[]; sites: unknown[] };
const TreeNode: z.ZodType<TreeNodeShape> = z.lazy(() =>
  z.object({ name: z.string(), path: z.string(), site: Site.optional(), groups: z.array(TreeNode), sites: z.array(Site) }),
);
const SitesResponse = z.object({ sites: z.array(Site), tree: TreeNode, count: z.number() });
const Grant = z.object({ kind: z.enum(['group', 'site']), target: z.string(), permissions: z.array(z.enum(['publish', 'unpublish', 'rollback', 'patch', 'purge'])) });
const ApiKey = z.object({ id: z.number(), name: z.string(), admin: z.boolean(), grants: z.array(Grant), created_at: z.string(), last_used_at: z.string().optional(), expires_at: z.string().optional() });

let svc: RunningService;
let admin: string;
const asAdmin = { user: 'admin' };

beforeAll(async () => {
  svc = await startService();
  admin = await svc.createKey(['--name', 'admin', '--admin']);
});
afterAll(() => svc?.stop());

describe('the gotifacts portal reads our API unchanged', () => {
  it('a fresh instance with no sites answers a tree with empty groups and sites', async () => {
    const res = await call(svc.url, 'GET', '/api/sites', asAdmin);
    expect(SitesResponse.parse(res.body)).toEqual({ sites: [], tree: { name: '', path: '', groups: [], sites: [] }, count: 0 });
  });

  it('every site and every tree node carries the arrays and strings the portal reads, in the default view and a search that matches nothing', async () => {
    await publish(svc.url, admin, { group: '', slug: 'bare', title: 'Bare' }, { index: '<p>bare</p>' });
    await publish(svc.url, admin, { group: 'docs', slug: 'app', title: 'App', description: 'D', tags: ['x'] }, { index: '<p>app</p>' });
    await publish(svc.url, admin, { group: 'docs', slug: 'deep', title: 'Deep' }, { index: '<p>deep</p>' });
    await publish(svc.url, admin, { group: 'docs/deep', slug: 'v1', title: 'Deep v1' }, { index: '<p>v1</p>' });
    for (const query of ['', '?sort=title', '?q=zzz-nothing', '?tag=none', '?group=docs', '?hidden=true']) {
      const res = await call(svc.url, 'GET', `/api/sites${query}`, asAdmin);
      expect(res.status, query).toBe(200);
      const parsed = SitesResponse.parse(res.body);
      if (query === '?q=zzz-nothing') expect(parsed.tree).toEqual({ name: '', path: '', groups: [], sites: [] });
    }
    const bare = Site.parse((await call(svc.url, 'GET', '/api/sites/bare', asAdmin)).body);
    expect(bare).toMatchObject({ description: '', tags: [], hidden: false });
  });

  it('its edit modal saves a site that has no description (empty strings clear, nothing is refused)', async () => {
    const res = await call(svc.url, 'PATCH', '/api/sites/bare', { ...asAdmin, body: { title: 'Bare', description: '', date: '', repo: '', tags: [] } });
    expect(res.status).toBe(200);
    expect(Site.parse(res.body)).toMatchObject({ title: 'Bare', description: '', tags: [] });
    expect(res.body.date).toBeUndefined();
  });

  it('its key modal creates keys with an empty or a date-only expiry', async () => {
    const grants = [{ kind: 'group', target: 'docs', permissions: ['publish'] }];
    const never = await call(svc.url, 'POST', '/api/keys', { ...asAdmin, body: { name: 'ci', admin: false, grants, expires_at: '' } });
    expect(never.status).toBe(201);
    expect(ApiKey.extend({ key: z.string() }).parse(never.body).expires_at).toBeUndefined();
    const dated = await call(svc.url, 'POST', '/api/keys', { ...asAdmin, body: { name: 'ci-2099', admin: false, grants, expires_at: '2099-01-01' } });
    expect(dated.status).toBe(201);
    expect(dated.body.expires_at).toBe('2099-01-01T00:00:00.000Z');
    const list = await call(svc.url, 'GET', '/api/keys', asAdmin);
    z.object({ keys: z.array(ApiKey) }).parse(list.body);
  });

  it('its rollback sends {} and its trash lists sites with deleted_at', async () => {
    await publish(svc.url, admin, { group: 'docs', slug: 'app' }, { index: '<p>app v2</p>' });
    const rolled = await call(svc.url, 'POST', '/api/sites/docs/app/rollback', { ...asAdmin, body: {} });
    expect(rolled.status).toBe(200);
    Site.parse(rolled.body);
    expect((await call(svc.url, 'DELETE', '/api/sites/docs/deep', asAdmin)).status).toBe(204);
    const trash = await call(svc.url, 'GET', '/api/sites/deleted', asAdmin);
    const parsed = z.object({ sites: z.array(Site.extend({ deleted_at: z.string() })), count: z.number() }).parse(trash.body);
    expect(parsed.count).toBe(1);
  });
});

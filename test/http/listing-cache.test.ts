import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../support/http.ts';
import { publish } from '../support/publish.ts';
import { startService, type RunningService } from '../support/service.ts';

/**
 * Listing bodies and site documents are cached by the read model's checkpoint. Two
 * instances share one data dir, so a write through one must show in the very next answer
 * of the other: nothing stale from either cache, whoever projected the write. Every
 * answer is asked twice before a write, so the cached copy is the one being tested.
 */
let a: RunningService;
let b: RunningService;
let dataDir: string;
let admin: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'sites-listing-cache-'));
  a = await startService({ dataDir });
  b = await startService({ dataDir });
  admin = await a.createKey(['--name', 'admin', '--admin']);
}, 60_000);
afterAll(async () => {
  await a?.halt();
  await b?.halt();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function list(svc: RunningService, query = '', who: { key?: string; user?: string } = { key: admin }): Promise<any> {
  let body: any;
  for (let i = 0; i < 2; i++) {
    const res = await call(svc.url, 'GET', `/api/sites${query}`, who);
    expect(res.status).toBe(200);
    if (i > 0) expect(res.body).toEqual(body);
    body = res.body;
  }
  return body;
}

/** The sites of a listing, page and tree, as `path: title`. */
function seen(body: any): { page: string[]; tree: string[] } {
  const flat = (node: any): any[] => [...(node.site ? [node.site] : []), ...node.sites, ...node.groups.flatMap(flat)];
  const name = (s: any) => `${s.group ? `${s.group}/` : ''}${s.slug}: ${s.title}`;
  return { page: body.sites.map(name), tree: flat(body.tree).map(name).sort() };
}

async function published(svc: RunningService, group: string, slug: string, meta: Record<string, unknown>, index = `<p>${slug}</p>`): Promise<void> {
  expect((await publish(svc.url, admin, { group, slug, ...meta }, { index })).status).toBe(200);
}

describe('listings cached by checkpoint', () => {
  it('shows a publish, a patch and an unpublish that returned in the next listing, on both instances', async () => {
    await published(a, 'rw', 'one', { title: 'One' });
    expect(seen(await list(a, '?group=rw')).tree).toEqual(['rw/one: One']);
    expect(seen(await list(b, '?group=rw')).tree).toEqual(['rw/one: One']);

    await published(b, 'rw', 'two', { title: 'Two' });
    expect(seen(await list(a, '?group=rw')).tree).toEqual(['rw/one: One', 'rw/two: Two']);

    expect((await call(b.url, 'PATCH', '/ingest/sites/rw/one', { key: admin, body: { title: 'One again' } })).status).toBe(200);
    expect(seen(await list(a, '?group=rw')).page.sort()).toEqual(['rw/one: One again', 'rw/two: Two']);
    expect(seen(await list(b, '?group=rw')).tree).toEqual(['rw/one: One again', 'rw/two: Two']);

    expect((await call(a.url, 'DELETE', '/ingest/sites/rw/two', { key: admin })).status).toBe(204);
    const after = await list(b, '?group=rw');
    expect(seen(after).tree).toEqual(['rw/one: One again']);
    expect(after.count).toBe(1);
    expect(seen(await list(a, '?group=rw')).tree).toEqual(['rw/one: One again']);
  });

  it('never hands a non-admin the hidden sites of a cached admin listing', async () => {
    await published(a, 'hid', 'open', { title: 'Open' });
    await published(a, 'hid', 'secret', { title: 'Secret', hidden: true });
    const both = ['hid/open: Open', 'hid/secret: Secret'];
    expect(seen(await list(a, '?group=hid&hidden=true')).tree).toEqual(both);
    // The same URL, asked by someone who may not see hidden sites.
    expect(seen(await list(a, '?group=hid&hidden=true', { user: 'viewer' })).tree).toEqual(['hid/open: Open']);
    expect(seen(await list(a, '?group=hid', { user: 'viewer' })).tree).toEqual(['hid/open: Open']);
    // And the other way round: a viewer's answer first, then an admin who asks for hidden sites.
    expect(seen(await list(b, '?group=hid&hidden=true', { user: 'viewer' })).tree).toEqual(['hid/open: Open']);
    expect(seen(await list(b, '?group=hid&hidden=true', { user: 'admin' })).tree).toEqual(both);
    expect(seen(await list(b, '?group=hid', { user: 'admin' })).tree).toEqual(['hid/open: Open']);
  });

  it('answers each query with its own body', async () => {
    await published(a, 'q', 'alpha', { title: 'Alpha', tags: ['x'], date: '2024-01-02' });
    await published(a, 'q', 'beta', { title: 'Beta', tags: ['y'], date: '2024-01-01' });
    await published(a, 'q', 'gamma', { title: 'Gamma', tags: ['x'], date: '2024-01-03' });
    const page = async (query: string) => seen(await list(a, `?group=q&${query}`)).page;
    expect(await page('q=alpha')).toEqual(['q/alpha: Alpha']);
    expect(await page('q=beta')).toEqual(['q/beta: Beta']);
    expect(await page('tag=x')).toEqual(['q/gamma: Gamma', 'q/alpha: Alpha']);
    expect(await page('tag=y')).toEqual(['q/beta: Beta']);
    expect(await page('sort=title')).toEqual(['q/alpha: Alpha', 'q/beta: Beta', 'q/gamma: Gamma']);
    expect(await page('sort=date')).toEqual(['q/gamma: Gamma', 'q/alpha: Alpha', 'q/beta: Beta']);
    expect(await page('limit=1')).toEqual(['q/gamma: Gamma']);
    expect(await page('limit=1&offset=1')).toEqual(['q/alpha: Alpha']);
    expect(await page('limit=2')).toEqual(['q/gamma: Gamma', 'q/alpha: Alpha']);
    expect((await list(a, '?group=q&limit=1')).count).toBe(3);
  });
});

describe('site hosts with cached documents and routes', () => {
  const get = async (svc: RunningService, path: string) => {
    const res = await fetch(`${svc.siteUrl('serve/page')}${path}`);
    return `${res.status} ${await res.text()}`;
  };

  it('serve a republish or an unpublish made through the other instance at once', async () => {
    await published(a, 'serve', 'page', { title: 'Page' }, '<p>first</p>');
    for (let i = 0; i < 3; i++) expect(await get(a, '')).toBe('200 <p>first</p>');
    for (let i = 0; i < 3; i++) expect(await get(b, 'index.html')).toBe('200 <p>first</p>');

    await published(b, 'serve', 'page', {}, '<p>second</p>');
    expect(await get(a, '')).toBe('200 <p>second</p>');
    expect(await get(a, 'index.html')).toBe('200 <p>second</p>');
    expect(await get(b, 'index.html')).toBe('200 <p>second</p>');

    expect((await call(b.url, 'DELETE', '/ingest/sites/serve/page', { key: admin })).status).toBe(204);
    expect(await get(a, '')).toBe('404 site not found\n');
  });
});

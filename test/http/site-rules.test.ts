/**
 * `_redirects` and `_headers` on a real service (spec §11): parsed at publish (errors are a
 * 400 naming the file and line, and change nothing), applied by the site server only when
 * no file answers, before the site's 404.html; the two files are never served.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publish } from '../support/publish.ts';
import { startService, type RunningService } from '../support/service.ts';

let svc: RunningService;
let admin: string;

const redirects = [
  '# moved docs',
  '/old-docs/* /docs/:splat 301',
  '/blog/:year/:slug /posts/:slug?year=:year 302',
  '/ext https://example.org/ 307',
  '/gone /404.html 404',
  '/about /about.html 200',
  '/* /index.html 200',
].join('\n');
const headers = ['/*', '  X-Frame-Options: DENY', '/assets/*', '  Cache-Control: public, max-age=31536000, immutable', '  X-Extra: one', '/assets/*.css', '  X-Extra: two'].join('\n');
const files = {
  'index.html': '<p>app shell</p>',
  'about.html': '<p>about</p>',
  '404.html': '<p>custom 404</p>',
  'assets/app.css': 'body{}',
  'docs/index.html': '<p>docs</p>',
  _redirects: redirects,
  _headers: headers,
};

async function get(path: string, init: RequestInit = {}) {
  return fetch(new URL(path, svc.siteUrl('app')), { redirect: 'manual', ...init });
}

beforeAll(async () => {
  svc = await startService();
  admin = await svc.createKey(['--name', 'admin', '--admin']);
  const res = await publish(svc.url, admin, { group: '', slug: 'app', title: 'SPA' }, { files });
  expect(res.status).toBe(200);
});
afterAll(() => svc?.stop());

describe('_redirects on the site host', () => {
  it('serves the single-page app fallback for a deep link, with 200', async () => {
    const res = await get('/users/42/settings');
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('<p>app shell</p>');
  });

  it('lets files answer first: an exact file, a directory index, a pretty URL', async () => {
    expect(await (await get('/assets/app.css')).text()).toBe('body{}');
    expect(await (await get('/docs/')).text()).toBe('<p>docs</p>');
    expect((await get('/docs')).status).toBe(301); // the directory redirect of §6 comes before the rules
    expect(await (await get('/about')).text()).toBe('<p>about</p>');
  });

  it('redirects with splats, placeholders and the request query kept', async () => {
    const a = await get('/old-docs/guide/intro?x=1');
    expect(a.status).toBe(301);
    expect(a.headers.get('location')).toBe('/docs/guide/intro?x=1');
    const b = await get('/blog/2024/hello');
    expect(b.status).toBe(302);
    expect(b.headers.get('location')).toBe('/posts/hello?year=2024');
    const c = await get('/ext');
    expect(c.status).toBe(307);
    expect(c.headers.get('location')).toBe('https://example.org/');
  });

  it('serves TO with 404 for a 404 rule', async () => {
    const res = await get('/gone');
    expect(res.status).toBe(404);
    expect(await res.text()).toBe('<p>custom 404</p>');
  });

  it('never serves _redirects or _headers themselves', async () => {
    for (const path of ['/_redirects', '/_headers']) {
      // The fallback rule answers them like any other missing path: their content never leaks.
      const body = await (await get(path)).text();
      expect(body).toBe('<p>app shell</p>');
    }
  });
});

describe('_headers on the site host', () => {
  it('sets headers on every matching file, replacing the service’s own, joining repeated ones', async () => {
    const css = await get('/assets/app.css');
    expect(css.headers.get('x-frame-options')).toBe('DENY');
    expect(css.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(css.headers.get('x-extra')).toBe('one, two');
    const page = await get('/');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('cache-control')).toBe('no-cache');
  });
});

describe('publish-time errors', () => {
  it('refuses a bad _redirects or _headers with 400 naming the file and line, and changes nothing', async () => {
    const bad = await publish(svc.url, admin, { group: '', slug: 'app' }, { files: { ...files, 'index.html': '<p>v2</p>', _redirects: '/a /b\n/c /d 301!' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/^_redirects line 2: forced rules/);
    const badHeaders = await publish(svc.url, admin, { group: '', slug: 'app' }, { files: { ...files, 'index.html': '<p>v2</p>', _headers: '/*\n  Set-Cookie: a=b' } });
    expect(badHeaders.status).toBe(400);
    expect(badHeaders.body.error).toMatch(/^_headers line 2: Set-Cookie cannot be set/);
    expect(await (await get('/')).text()).toBe('<p>app shell</p>');
  });

  it('refuses a Trailer header at publish: it would have made every answer of the site fail', async () => {
    const res = await publish(svc.url, admin, { group: '', slug: 'trailer', title: 'T' }, { files: { 'index.html': 'x', _headers: '/*\n  Trailer: X-A' } });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^_headers line 2: Trailer cannot be set/);
    expect((await fetch(svc.url + '/healthz')).status).toBe(200);
  });

  it('keeps a splat redirect on the site and answers odd request paths without a 500', async () => {
    expect((await publish(svc.url, admin, { group: '', slug: 'blog', title: 'B' }, { files: { 'index.html': 'x', _redirects: '/blog/* /:splat 301' } })).status).toBe(200);
    for (const [path, location] of [
      ['/blog//evil.example', '/evil.example'],
      ['/blog/%5Cevil.example', '/%5Cevil.example'],
      ['/blog/%0d%0ax', '/%0D%0Ax'],
      ['/blog/%E2%82%AC', '/%E2%82%AC'],
    ]) {
      const res = await fetch(new URL(path, svc.siteUrl('blog')), { redirect: 'manual' });
      expect(res.status, path).toBe(301);
      expect(res.headers.get('location'), path).toBe(location);
    }
  });

  it('serves through 1,000 rules', async () => {
    const many = Array.from({ length: 999 }, (_, i) => `/r${i}/:page /t${i}/:page 302`).concat('/* /index.html 200').join('\n');
    expect((await publish(svc.url, admin, { group: '', slug: 'many', title: 'Many' }, { files: { 'index.html': 'home', _redirects: many } })).status).toBe(200);
    const res = await fetch(new URL('/r998/x', svc.siteUrl('many')), { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/t998/x');
  });
});

describe('what a publisher’s rules may do to everyone else (issue 24)', () => {
  it('refuses Clear-Site-Data, Set-Cookie2 and Refresh with 400 naming the file and line, and changes nothing (item 8)', async () => {
    // Clear-Site-Data from a site wipes the portal's and every other site's cookies in Chromium.
    for (const header of ['Clear-Site-Data: "cookies"', 'Set-Cookie2: a=b', 'Refresh: 0; url=https://evil.example/']) {
      const res = await publish(svc.url, admin, { group: '', slug: 'app' }, { files: { ...files, 'index.html': '<p>v2</p>', _headers: `/*\n  X-Frame-Options: DENY\n  ${header}` } });
      expect(res.status, header).toBe(400);
      expect(res.body.error, header).toBe(`_headers line 3: ${header.split(':')[0]} cannot be set by a site`);
    }
    const page = await get('/');
    expect(await page.text()).toBe('<p>app shell</p>');
    expect(page.headers.get('clear-site-data')).toBeNull();
  });

  it('refuses header values that would make every answer of the site huge, naming the line (item 5)', async () => {
    const big = 'v'.repeat(500_000);
    const res = await publish(svc.url, admin, { group: '', slug: 'big', title: 'B' }, { files: { 'index.html': 'x', _headers: `/*\n  X-Big: ${big}\n/*\n  X-Big: ${big}` } });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('_headers line 2: the value of X-Big is 500000 bytes, more than 8192');
    // Within the bounds, every block still applies: one header joined from four blocks.
    const value = 'v'.repeat(3000);
    const ok = await publish(svc.url, admin, { group: '', slug: 'big', title: 'B' }, { files: { 'index.html': 'x', _headers: Array(4).fill(`/*\n  X-Big: ${value}`).join('\n') } });
    expect(ok.status).toBe(200);
    for (const query of ['', '?a=1', '?a=2']) {
      const res2 = await fetch(new URL(`/${query}`, svc.siteUrl('big')));
      expect(res2.headers.get('x-big')).toBe(Array(4).fill(value).join(', '));
    }
  });

  it('refuses patterns deeper than 32 segments or with more than 4 * inside them (item 6)', async () => {
    const star = await publish(svc.url, admin, { group: '', slug: 'deep', title: 'D' }, { files: { 'index.html': 'x', _redirects: `/a /b\n/g/r1${'*x'.repeat(240)} /t 302` } });
    expect(star.status).toBe(400);
    expect(star.body.error).toMatch(/^_redirects line 2: "\/g\/r1\*x\*x.*…" has more than 4 \* inside its segments$/);
    const deep = await publish(svc.url, admin, { group: '', slug: 'deep', title: 'D' }, { files: { 'index.html': 'x', _headers: `${'/a'.repeat(33)}\n  X-A: 1` } });
    expect(deep.status).toBe(400);
    expect(deep.body.error).toMatch(/^_headers line 1: .* has more than 32 segments$/);
  });
});

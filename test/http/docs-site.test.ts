/**
 * The docs at /docs/ on the apex (host/docs/site.ts), as a reader following the portal's
 * "Docs" link gets them: rendered pages whose every link leads to a served page and anchor,
 * behind the apex's inert headers, and nothing from the repository but what the docs link to.
 */
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../host/docs/markdown.ts';
import { startService, type RunningService } from '../support/service.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');
let svc: RunningService;

beforeAll(async () => {
  svc = await startService();
});
afterAll(() => svc?.stop());

/** The status of a GET whose request line carries `path` exactly as given. */
function rawStatus(path: string): Promise<number> {
  const { hostname, port } = new URL(svc.url);
  return new Promise((done, fail) => {
    request({ host: hostname, port, path, headers: { host: new URL(svc.url).host } }, (res) => {
      res.resume();
      done(res.statusCode ?? 0);
    })
      .on('error', fail)
      .end();
  });
}

const get = (path: string, init: RequestInit = {}) => fetch(`${svc.url}${path}`, { redirect: 'manual', ...init });

describe('the docs on the apex', () => {
  it('serves the index rendered, with the apex security headers', async () => {
    const res = await get('/docs/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain('sandbox');
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    const html = await res.text();
    expect(html).toContain('<h1 id="documentation">');
    expect(html).toContain('href="/docs/tutorial.md"');
    expect(html).not.toContain('<script');
    expect((await get('/docs')).headers.get('location')).toBe('/docs/');
  });

  it('every link of every page reached from the index leads to a served page, and every #anchor to a heading of it', async () => {
    const pages = new Map<string, string>();
    const queue = ['/docs/'];
    const problems: string[] = [];
    const links: [from: string, href: string][] = [];
    while (queue.length) {
      const path = queue.shift()!;
      if (pages.has(path)) continue;
      const res = await get(path);
      if (res.status !== 200) {
        problems.push(`${path}: ${res.status}`);
        continue;
      }
      const text = await res.text();
      pages.set(path, text);
      if (!res.headers.get('content-type')?.startsWith('text/html')) continue;
      for (const [, href] of text.matchAll(/href="([^"]+)"/g)) {
        const url = new URL(href.replaceAll('&#38;', '&'), `${svc.url}${path}`);
        if (url.origin !== svc.url) continue;
        links.push([path, url.pathname + url.hash]);
        if (url.pathname.startsWith('/docs/')) queue.push(url.pathname);
      }
    }
    for (const [from, href] of links) {
      const [path, anchor] = href.split('#') as [string, string | undefined];
      if (!path.startsWith('/docs/')) continue;
      const page = pages.get(path);
      if (page === undefined) continue; // reported above
      if (anchor && !page.includes(`id="${anchor}"`)) problems.push(`${from} → ${href}: no such anchor`);
    }
    expect(problems).toEqual([]);
    // The crawl reached the tutorial, a how-to, the generated references and a linked repository file.
    for (const path of ['/docs/tutorial.md', '/docs/how-to/https.md', '/docs/reference/configuration.md', '/docs/reference/cli.md', '/docs/repo/README.md', '/docs/repo/deploy/Caddyfile']) {
      expect(pages.has(path), path).toBe(true);
    }
    expect(links.length).toBeGreaterThan(100);
  });

  it('serves linked repository files as plain text, and nothing the docs do not link to', async () => {
    const caddy = await get('/docs/repo/deploy/Caddyfile');
    expect(caddy.status).toBe(200);
    expect(caddy.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await caddy.text()).toBe(readFileSync(join(ROOT, 'deploy', 'Caddyfile'), 'utf8'));
    // Sent as written (fetch would resolve dot segments itself, encoded ones included).
    for (const path of ['/docs/repo/package.json', '/docs/repo/host/config.ts', '/docs/../package.json', '/docs/repo/../../../etc/passwd', '/docs/%2e%2e/package.json', '/docs/repo/..%2f..%2fpackage.json', '/docs/repo/docs/%2e%2e%2fpackage.json', '/docs/nope.md']) {
      expect(await rawStatus(path), path).toBe(404);
    }
  });

  it('is read-only: other methods are not served', async () => {
    expect((await get('/docs/', { method: 'POST' })).status).not.toBe(200);
  });
});

describe('rendering', () => {
  it('shows raw HTML in the Markdown as text and maps links through the given function', () => {
    const html = renderMarkdown('# Title\n\n<script>alert(1)</script>\n\n[a](x.md#b) <img src=x onerror=alert(1)>\n', (href) => `/mapped/${href}`);
    expect(html).not.toContain('<script');
    expect(html).not.toContain('<img');
    expect(html).toContain('&#60;script&#62;');
    expect(html).toContain('href="/mapped/x.md#b"');
    expect(html).toContain('<h1 id="title">');
  });
});

import type { Context, Next } from 'koa';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { docPages, linksOf, renderMarkdown } from './markdown.ts';

/**
 * The docs at `/docs/` on the apex: docs/*.md rendered to HTML, the README and the other
 * repository files they link to (deploy/Caddyfile, …) under `/docs/repo/`. Served by the
 * service itself so the docs a reader opens from the portal are those of the version that
 * runs, with no repository URL to configure (a self-hosted copy has none we could know).
 *
 * The pages are the service's own, but they are served like anything else on the apex: the
 * apex-wide headers (api/security-headers.ts) make them inert (`default-src 'none'; sandbox`,
 * `nosniff`, no framing); the HTML needs nothing more than its inline style. Only files the
 * docs link to are served, looked up in a table built once, so no request path reaches the
 * file system.
 */

type Page = { readonly type: string; readonly body: string };

const PREFIX = '/docs/';
/** A linked file larger than this is not a document; it is left out rather than served. */
const MAX_FILE_BYTES = 1024 * 1024;
const ABSOLUTE = /^[a-z][a-z0-9+.-]*:|^\/\//i;

/** Where a repository file is served: docs/ pages by their path under docs/, anything else under /docs/repo/. */
export function docsUrl(path: string): string {
  if (path === 'docs/README.md') return PREFIX;
  if (path.startsWith('docs/')) return PREFIX + path.slice('docs/'.length);
  return `${PREFIX}repo/${path}`;
}

/** A link of `page` as it must read when served: repository paths become served URLs. */
function servedHref(page: string, target: string): string {
  if (ABSOLUTE.test(target) || target.startsWith('#')) return target;
  const [path = '', anchor] = target.split('#', 2) as [string, string | undefined];
  const resolved = normalize(join(dirname(page), decodeURIComponent(path))).split('\\').join('/');
  if (resolved.startsWith('..') || resolved.startsWith('/')) return '#';
  return docsUrl(resolved) + (anchor ? `#${anchor}` : '');
}

function title(markdown: string): string {
  return /^# (.+)$/m.exec(markdown)?.[1]?.replace(/`/g, '') ?? 'Documentation';
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function htmlPage(page: string, markdown: string): string {
  const body = renderMarkdown(markdown, (target) => servedHref(page, target));
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title(markdown))} · sites docs</title>
<style>${STYLE}</style>
</head>
<body>
<header><a class="brand" href="/docs/">sites docs</a><nav><a href="/docs/tutorial.md">Tutorial</a><a href="/docs/reference/configuration.md">Configuration</a><a href="/docs/reference/http-api.md">HTTP API</a><a href="/">Portal</a></nav></header>
<main>
${body}
</main>
<footer>From <code>${escapeHtml(page)}</code> of the running version.</footer>
</body>
</html>
`;
}

/** Every served URL and its answer: the docs pages, and the repository files they link to (and those pages link to). */
export function buildDocsSite(root: string): Map<string, Page> {
  const site = new Map<string, Page>();
  const queue = docPages(root);
  const seen = new Set(queue);
  while (queue.length > 0) {
    const path = queue.shift()!;
    const file = join(root, path);
    if (!existsSync(file) || !statSync(file).isFile() || statSync(file).size > MAX_FILE_BYTES) continue;
    const text = readFileSync(file, 'utf8');
    if (!path.endsWith('.md')) {
      site.set(docsUrl(path), { type: 'text/plain; charset=utf-8', body: text });
      continue;
    }
    site.set(docsUrl(path), { type: 'text/html; charset=utf-8', body: htmlPage(path, text) });
    for (const link of linksOf(text)) {
      if (ABSOLUTE.test(link) || link.startsWith('#')) continue;
      const target = normalize(join(dirname(path), decodeURIComponent(link.split('#')[0]!))).split('\\').join('/');
      if (target.startsWith('..') || target.startsWith('/') || seen.has(target)) continue;
      seen.add(target);
      queue.push(target);
    }
  }
  return site;
}

/** The koa middleware: GET/HEAD under /docs/; everything else passes on. */
export function docsMiddleware(root: string) {
  let site: Map<string, Page> | undefined;
  return async (ctx: Context, next: Next) => {
    if (ctx.path !== '/docs' && !ctx.path.startsWith(PREFIX)) return next();
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    if (ctx.path === '/docs') {
      ctx.status = 301;
      ctx.redirect(PREFIX);
      return;
    }
    site ??= buildDocsSite(root);
    let path: string;
    try {
      path = decodeURIComponent(ctx.path);
    } catch {
      path = '';
    }
    const page = site.get(path) ?? (path.endsWith('/README.md') ? site.get(path.slice(0, -'README.md'.length)) : undefined);
    ctx.set('Cache-Control', 'no-cache');
    if (!page) {
      ctx.status = 404;
      ctx.type = 'text/plain; charset=utf-8';
      ctx.body = `No such page in the docs. The index is at ${PREFIX}\n`;
      return;
    }
    ctx.type = page.type;
    ctx.body = page.body;
  };
}

const STYLE = `
:root { color-scheme: light dark; --fg: #1d2330; --muted: #5b6475; --bg: #fff; --code: #f3f5f9; --line: #dde2ea; --link: #2756c5; --bar: #141a2a; }
@media (prefers-color-scheme: dark) { :root { --fg: #e3e7ef; --muted: #9aa3b5; --bg: #10141d; --code: #1b2130; --line: #2c3446; --link: #8fb0ff; } }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.6 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
header { display: flex; flex-wrap: wrap; gap: 0.5rem 1.5rem; align-items: center; padding: 0.6rem 1.5rem; background: var(--bar); }
header a { color: #dfe6f5; text-decoration: none; }
header .brand { font-weight: 700; }
header nav { display: flex; flex-wrap: wrap; gap: 0.25rem 1rem; }
main { max-width: 52rem; margin: 0 auto; padding: 1rem 1.5rem 3rem; }
footer { max-width: 52rem; margin: 0 auto; padding: 1rem 1.5rem 2rem; color: var(--muted); font-size: 0.85rem; border-top: 1px solid var(--line); }
a { color: var(--link); }
h1, h2, h3 { line-height: 1.25; margin: 1.6em 0 0.6em; }
h1 { font-size: 1.9rem; margin-top: 0.8em; }
h2 { font-size: 1.4rem; padding-bottom: 0.2em; border-bottom: 1px solid var(--line); }
h3 { font-size: 1.15rem; }
.anchor { float: left; margin-left: -1.1em; width: 1.1em; color: var(--muted); text-decoration: none; visibility: hidden; }
h1:hover .anchor, h2:hover .anchor, h3:hover .anchor, h4:hover .anchor { visibility: visible; }
code { font: 0.9em/1.5 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; background: var(--code); padding: 0.1em 0.3em; border-radius: 4px; }
pre { background: var(--code); padding: 0.8rem 1rem; border-radius: 6px; overflow-x: auto; }
pre code { padding: 0; background: none; }
table { border-collapse: collapse; display: block; overflow-x: auto; margin: 1rem 0; }
th, td { border: 1px solid var(--line); padding: 0.35rem 0.6rem; text-align: left; vertical-align: top; }
th { background: var(--code); }
`;

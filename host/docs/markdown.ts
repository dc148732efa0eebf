import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import GithubSlugger from 'github-slugger';
import { Lexer, Marked, type Token, type Tokens } from 'marked';

/**
 * The docs as Markdown: which files they are, their links, their anchors, and their HTML.
 * Anchors are made the way GitHub makes them (github-slugger), so a `#section` link works
 * the same on GitHub, in an editor's preview and at `/docs/` on the service; the link test
 * (test/unit/docs-links.test.ts) and the renderer share this module, so what the test checks
 * is what the service serves.
 */

/** The documentation pages, repository-relative: the README and every Markdown file under docs/. */
export function docPages(root: string): string[] {
  const out = ['README.md'];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.md')) out.push(relative(root, path).split('\\').join('/'));
    }
  };
  walk(join(root, 'docs'));
  return out.sort();
}

type WithTokens = { tokens?: Token[] };

/** A heading's text as GitHub slugs it: the inline Markdown's text, without its markup. */
function plain(tokens: readonly Token[]): string {
  return tokens.map((t) => ((t as WithTokens).tokens ? plain((t as WithTokens).tokens!) : 'text' in t ? String(t.text) : '')).join('');
}

function walk(markdown: string, visit: (token: Token) => void): void {
  new Marked().walkTokens(Lexer.lex(markdown), visit);
}

/** Every link and image target of the page, in order. */
export function linksOf(markdown: string): string[] {
  const out: string[] = [];
  walk(markdown, (t) => {
    if (t.type === 'link' || t.type === 'image') out.push((t as Tokens.Link).href);
  });
  return out;
}

/** The `#anchors` the page's headings get, as GitHub names them. */
export function anchorsOf(markdown: string): Set<string> {
  const slugger = new GithubSlugger();
  const out = new Set<string>();
  walk(markdown, (t) => {
    if (t.type === 'heading') out.add(slugger.slug(plain((t as Tokens.Heading).tokens)));
  });
  return out;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The page as HTML: headings get their GitHub anchors, every link target goes through
 * `href` (which maps repository paths to served URLs), and raw HTML in the Markdown is shown
 * as text, never passed through: the pages are ours, but nothing on the apex should depend
 * on that.
 */
export function renderMarkdown(markdown: string, href: (target: string) => string): string {
  const slugger = new GithubSlugger();
  const marked = new Marked({ gfm: true, async: false });
  marked.use({
    renderer: {
      heading(token) {
        const id = slugger.slug(plain(token.tokens));
        return `<h${token.depth} id="${escapeHtml(id)}"><a class="anchor" href="#${escapeHtml(id)}">#</a>${this.parser.parseInline(token.tokens)}</h${token.depth}>\n`;
      },
      html(token) {
        return escapeHtml(token.text);
      },
    },
    walkTokens(token) {
      if (token.type === 'link' || token.type === 'image') (token as Tokens.Link).href = href((token as Tokens.Link).href);
    },
  });
  return marked.parse(markdown) as string;
}

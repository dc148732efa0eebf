/**
 * `_redirects` (spec §11): one rule per line, `FROM TO [STATUS]`, parsed once at publish.
 * The subset the large hosted publishers share, without what needs more than a static
 * file server: proxying to a URL, forced rules (`!`) and conditions are refused.
 */
import { ValidationError } from '../errors.ts';
import { MAX_HEADER_VALUE_BYTES } from './headers.ts';
import { compilePatterns, parsePattern, shapeError, type Captures, type PatternIndex } from './patterns.ts';

export const REDIRECT_STATUSES = [301, 302, 303, 307, 308, 200, 404] as const;
export type RedirectStatus = (typeof REDIRECT_STATUSES)[number];
export const MAX_REDIRECT_RULES = 1000;

/** One rule as stored with the revision (plain data: it is written as JSON). */
export type RedirectRule = { readonly from: string; readonly to: string; readonly status: RedirectStatus };

/** What a request gets from the rules: a redirect to a location, or a file of the site served with a status. */
export type RedirectOutcome =
  | { readonly kind: 'redirect'; readonly status: 301 | 302 | 303 | 307 | 308; readonly location: string }
  | { readonly kind: 'serve'; readonly status: 200 | 404; readonly path: string };

const fail = (line: number, message: string): never => {
  throw new ValidationError(`_redirects line ${line}: ${message}`);
};

const CONDITION = /^[A-Za-z]+=/;

/** Parses the file; a syntax error or an unsupported feature throws ValidationError naming the line. */
export function parseRedirects(text: string): RedirectRule[] {
  const rules: RedirectRule[] = [];
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    const line = i + 1;
    const content = raw.replace(/(^|\s)#.*$/, '').trim();
    if (content === '') continue;
    const tokens = content.split(/\s+/);
    if (tokens.length < 2) fail(line, 'expected FROM TO [STATUS]');
    const [from, to, statusText, ...rest] = tokens as [string, string, string | undefined, ...string[]];
    if (rest.length > 0 || (statusText !== undefined && CONDITION.test(statusText)) || tokens.slice(2).some((t) => CONDITION.test(t))) {
      fail(line, 'conditions (country, language, role, query parameters) are not supported');
    }
    const pattern = parsePattern(from);
    if (typeof pattern === 'string') return fail(line, pattern);
    const shape = shapeError(pattern);
    if (shape) fail(line, shape);
    let status: RedirectStatus = 301;
    if (statusText !== undefined) {
      if (statusText.endsWith('!')) fail(line, `forced rules (${statusText}) are not supported`);
      const n = Number(statusText);
      if (!(REDIRECT_STATUSES as readonly number[]).includes(n)) fail(line, `status ${JSON.stringify(statusText)} is not one of ${REDIRECT_STATUSES.join(', ')}`);
      status = n as RedirectStatus;
    }
    // TO becomes a Location header: printable ASCII only (other characters percent-encoded),
    // and no longer than any header a site sets.
    if (to.length > MAX_HEADER_VALUE_BYTES) fail(line, `the target is ${to.length} bytes, more than ${MAX_HEADER_VALUE_BYTES}`);
    if (!/^[\x21-\x7e]+$/.test(to)) fail(line, `${JSON.stringify(to)} has characters a URL must percent-encode`);
    const external = /^https?:\/\//i.test(to);
    if (!external && !to.startsWith('/')) fail(line, `${JSON.stringify(to)} must be a path starting with / or an http(s) URL`);
    if (external && (status === 200 || status === 404)) fail(line, `proxying to another site (${status} to a URL) is not supported`);
    if (external) {
      try {
        new URL(to);
      } catch {
        fail(line, `${JSON.stringify(to)} is not a valid URL`);
      }
    }
    rules.push({ from, to, status });
    if (rules.length > MAX_REDIRECT_RULES) fail(line, `more than ${MAX_REDIRECT_RULES} rules`);
  }
  return rules;
}

/** Replaces `:name` and `:splat` in TO by what the request matched (unknown names stay as written). */
function substitute(to: string, captures: Captures): string {
  // Captured text comes from the request: encoded again, segment by segment, so it can add
  // path segments but never a scheme, a host (`//evil.example`), a query or a header break.
  const encode = (value: string) => value.split('/').map(encodeURIComponent).join('/');
  const target = to.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, (whole, name: string) => (captures[name] === undefined ? whole : encode(captures[name])));
  // A path target stays on this site: `//host` or `/\host` would be read as another host.
  return to.startsWith('/') ? target.replace(/^[/\\]+/, '/') : target;
}

/** Adds the request's query string to a redirect target, after any query the target has. */
function withQuery(location: string, search: string): string {
  if (search === '' || search === '?') return location;
  const query = search.startsWith('?') ? search.slice(1) : search;
  const hash = location.indexOf('#');
  const [base, fragment] = hash < 0 ? [location, ''] : [location.slice(0, hash), location.slice(hash)];
  return `${base}${base.includes('?') ? '&' : '?'}${query}${fragment}`;
}

/** The rules compiled for requests; build once per revision and keep it (it never changes). */
export type CompiledRedirects = { resolve(path: string, search: string): RedirectOutcome | undefined };

export function compileRedirects(rules: readonly RedirectRule[]): CompiledRedirects {
  const index: PatternIndex = compilePatterns(rules.map((r) => parsePattern(r.from) as Exclude<ReturnType<typeof parsePattern>, string>));
  return {
    resolve(path, search) {
      const hit = index.first(path);
      if (!hit) return undefined;
      const rule = rules[hit[0]]!;
      const target = substitute(rule.to, hit[1]);
      if (rule.status === 200 || rule.status === 404) return { kind: 'serve', status: rule.status, path: target.split(/[?#]/)[0]! };
      return { kind: 'redirect', status: rule.status, location: withQuery(target, search) };
    },
  };
}

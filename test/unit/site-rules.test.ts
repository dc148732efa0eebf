/**
 * `_redirects` and `_headers` (spec §11), table-driven: what each line means, what is
 * refused (with the file and line named), and that matching costs the path's depth, not
 * one test per rule.
 */
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../domain/errors.ts';
import { compileHeaders, MAX_HEADER_VALUE_BYTES, parseHeaders } from '../../domain/rules/headers.ts';
import { MAX_PATTERN_SEGMENTS } from '../../domain/rules/patterns.ts';
import { compileRedirects, parseRedirects } from '../../domain/rules/redirects.ts';

const resolve = (file: string, path: string, search = '') => compileRedirects(parseRedirects(file)).resolve(path, search);

describe('_redirects: what a rule does', () => {
  const cases: [string, string, string, string, unknown][] = [
    // file, request path, query, what happens, expected outcome
    ['/old /new', '/old', '', 'default status is 301', { kind: 'redirect', status: 301, location: '/new' }],
    ['/old /new 302', '/old', '', 'an explicit status', { kind: 'redirect', status: 302, location: '/new' }],
    ['/old /new 303', '/old', '', '303', { kind: 'redirect', status: 303, location: '/new' }],
    ['/old /new 307', '/old', '', '307', { kind: 'redirect', status: 307, location: '/new' }],
    ['/old /new 308', '/old', '', '308', { kind: 'redirect', status: 308, location: '/new' }],
    ['/old /new', '/old', '?a=1', 'the query string is kept', { kind: 'redirect', status: 301, location: '/new?a=1' }],
    ['/old /new?x=2', '/old', '?a=1', 'after a query of the target', { kind: 'redirect', status: 301, location: '/new?x=2&a=1' }],
    ['/ext https://example.org/x', '/ext', '', 'to an absolute URL', { kind: 'redirect', status: 301, location: 'https://example.org/x' }],
    ['/blog/:year/:slug /posts/:slug?y=:year', '/blog/2024/hello', '', ':name placeholders', { kind: 'redirect', status: 301, location: '/posts/hello?y=2024' }],
    ['/docs/* /v2/:splat', '/docs/a/b.html', '', 'a splat', { kind: 'redirect', status: 301, location: '/v2/a/b.html' }],
    ['/docs/* /v2/:splat', '/docs/', '', 'an empty splat', { kind: 'redirect', status: 301, location: '/v2/' }],
    ['/* /index.html 200', '/deep/link', '', 'the single-page-app fallback is a rewrite', { kind: 'serve', status: 200, path: '/index.html' }],
    ['/* /404-page.html 404', '/missing', '', '404 serves TO with 404', { kind: 'serve', status: 404, path: '/404-page.html' }],
    ['/a /first\n/a /second', '/a', '', 'first match wins', { kind: 'redirect', status: 301, location: '/first' }],
    ['/* /all\n/a /specific', '/a', '', 'first match wins even when a later one is more specific', { kind: 'redirect', status: 301, location: '/all' }],
    ['# a comment\n\n/a /b # trailing comment', '/a', '', 'comments and blank lines', { kind: 'redirect', status: 301, location: '/b' }],
    ['/a /b', '/c', '', 'no match', undefined],
    ['/a/:x /b/:x', '/a', '', 'a :name needs a segment', undefined],
    ['/a/:x /b/:x', '/a/', '', 'an empty segment is not a :name', undefined],
    ['/img/*.png /png 302', '/img/x.png', '', 'a * inside a segment', { kind: 'redirect', status: 302, location: '/png' }],
    ['/img/*.png /png 302', '/img/x/y.png', '', 'which does not cross a /', undefined],
  ];
  it.each(cases)('%j on %s%s: %s', (file, path, search, _what, expected) => {
    expect(resolve(file, path, search)).toEqual(expected);
  });
});

describe('_redirects: request text cannot leave the site or break the answer', () => {
  it.each([
    ['/blog/* /:splat 301', '/blog//evil.example', '/evil.example'],
    ['/blog/* /:splat 301', '/blog/\\evil.example', '/%5Cevil.example'],
    ['/u/:n /:n 301', '/u/\\evil.example', '/%5Cevil.example'],
    ['/blog/* /new/:splat 301', '/blog/\r\nSet-Cookie: x=1', '/new/%0D%0ASet-Cookie%3A%20x%3D1'],
    ['/blog/* /new/:splat 301', '/blog/€', '/new/%E2%82%AC'],
  ])('%j on %j redirects to %j', (file, path, location) => {
    expect(resolve(file, path)).toEqual({ kind: 'redirect', status: 301, location });
  });
});

describe('_redirects: what is refused at publish, naming the line', () => {
  const refused: [string, RegExp][] = [
    ['/a', /line 1: expected FROM TO/],
    ['\n\nold /b', /line 3: "old" must be an absolute path/],
    ['/a /b 418', /line 1: status "418" is not one of/],
    ['/a /b 301!', /forced rules/],
    ['/a /b 200!', /forced rules/],
    ['/a https://other.example/ 200', /proxying/],
    ['/a /b 302 Country=us', /conditions/],
    ['/a /b Language=en', /conditions/],
    ['/a /b 302 Role=admin', /conditions/],
    ['/a/*/b /c', /\* matching several segments may only end the pattern/],
    ['/a//b /c', /empty segment/],
    ['/a b', /must be a path starting with \/ or an http\(s\) URL/],
    ['/a /b?x 302 extra', /conditions/],
    ['/a /ünï', /characters a URL must percent-encode/],
  ];
  it.each(refused)('%j', (file, message) => {
    expect(() => parseRedirects(file)).toThrow(ValidationError);
    expect(() => parseRedirects(file)).toThrow(message);
    expect(() => parseRedirects(file)).toThrow(/^_redirects line \d+: /);
  });

  it('takes 1,000 rules and refuses the 1,001st', () => {
    const lines = Array.from({ length: 1000 }, (_, i) => `/r${i} /t${i}`);
    expect(parseRedirects(lines.join('\n'))).toHaveLength(1000);
    expect(() => parseRedirects([...lines, '/x /y'].join('\n'))).toThrow(/line 1001: more than 1000 rules/);
  });
});

describe('_redirects: matching cost', () => {
  it('resolves against 1,000 rules by walking the path, the last rule as fast as the first', () => {
    const rules = Array.from({ length: 999 }, (_, i) => `/section${i}/:page /new${i}/:page 301`);
    const compiled = compileRedirects(parseRedirects([...rules, '/* /index.html 200'].join('\n')));
    expect(compiled.resolve('/section998/x', '')).toEqual({ kind: 'redirect', status: 301, location: '/new998/x' });
    expect(compiled.resolve('/elsewhere', '')).toEqual({ kind: 'serve', status: 200, path: '/index.html' });
    const time = (path: string) => {
      const t0 = performance.now();
      for (let i = 0; i < 20_000; i++) compiled.resolve(path, '');
      return performance.now() - t0;
    };
    time('/section0/x');
    // A scan of every rule would make the miss 1,000 × the work of the first hit; a trie makes them alike.
    expect(time('/elsewhere/x/y')).toBeLessThan(10 * time('/section0/x') + 20);
  });
});

describe('_headers', () => {
  const file = [
    '/*',
    '  X-Frame-Options: DENY',
    '  Cache-Control: public, max-age=60',
    '/assets/*',
    '  Cache-Control: public, max-age=31536000, immutable',
    '/*.css',
    '  X-Kind: style',
    '/docs/:page',
    '  X-Robots-Tag: noindex',
    '  Link: </style.css>; rel=preload',
  ].join('\n');
  const headers = compileHeaders(parseHeaders(file));
  const of = (path: string) => Object.fromEntries(headers.for(path));

  it.each([
    ['/', { 'x-frame-options': 'DENY', 'cache-control': 'public, max-age=60' }],
    ['/assets/app.js', { 'x-frame-options': 'DENY', 'cache-control': 'public, max-age=60, public, max-age=31536000, immutable' }],
    ['/site.css', { 'x-frame-options': 'DENY', 'cache-control': 'public, max-age=60', 'x-kind': 'style' }],
    ['/docs/intro', { 'x-frame-options': 'DENY', 'cache-control': 'public, max-age=60', 'x-robots-tag': 'noindex', link: '</style.css>; rel=preload' }],
    ['/docs/a/b', { 'x-frame-options': 'DENY', 'cache-control': 'public, max-age=60' }],
  ])('%s gets the headers of every matching block, joined in file order', (path, expected) => {
    expect(of(path)).toEqual(expected);
  });

  it('refuses headers the service owns, naming the file and line', () => {
    for (const name of ['Content-Length', 'Content-Encoding', 'Content-Range', 'Transfer-Encoding', 'Connection', 'ETag', 'Set-Cookie', 'Trailer', 'Upgrade', 'Keep-Alive']) {
      expect(() => parseHeaders(`/*\n  ${name}: x`)).toThrow(new RegExp(`^_headers line 2: ${name} cannot be set`));
    }
  });

  it.each([
    ['  X-A: b', /line 1: a header line must follow a path line/],
    ['/*\n  no colon', /line 2: expected Name: value/],
    ['/*\n  Bad Name: x', /line 2: "Bad Name" is not a header name/],
    ['/*\n  X-Note: ✓', /line 2: the value of X-Note has a character a header cannot carry/],
    ['/*', /line 1: \/\* has no header lines/],
    ['relative\n  X-A: b', /line 1: "relative" must be an absolute path/],
  ])('refuses %j', (text, message) => {
    expect(() => parseHeaders(text)).toThrow(message);
  });
});

describe('_headers: what acts on the browser for every site is refused (issue 24 item 8)', () => {
  // Sites share their registrable domain with the portal: Clear-Site-Data from one wipes the
  // portal's and the other sites' cookies in Chromium; Set-Cookie2 and Refresh are refused like Set-Cookie.
  it.each(['Clear-Site-Data', 'clear-site-data', 'Set-Cookie2', 'Refresh'])('refuses %s naming the file and line', (name) => {
    expect(() => parseHeaders(`# site headers\n/*\n  X-Ok: 1\n  ${name}: "cookies", "storage"`)).toThrow(new RegExp(`^_headers line 4: ${name} cannot be set by a site`));
  });

  it('leaves them out of rules stored before they were refused', () => {
    const stored = [{ path: '/*', headers: [['Clear-Site-Data', '"*"'], ['X-Ok', '1'], ['Set-Cookie', 'a=b']] as [string, string][] }];
    expect(Object.fromEntries(compileHeaders(stored).for('/'))).toEqual({ 'x-ok': '1' });
  });
});

describe('_headers: what a site’s rules may add to one answer (issue 24 item 5)', () => {
  const value = (n: number) => 'v'.repeat(n);

  it('refuses a value past 8 KiB, naming the line', () => {
    expect(parseHeaders(`/*\n  X-A: ${value(MAX_HEADER_VALUE_BYTES)}`)).toHaveLength(1);
    expect(() => parseHeaders(`/*\n  X-A: 1\n  X-B: ${value(MAX_HEADER_VALUE_BYTES + 1)}`)).toThrow(/^_headers line 3: the value of X-B is 8193 bytes, more than 8192/);
  });

  it('refuses a block setting more than 12 KiB, at the line that passes it', () => {
    const lines = ['/*', `  X-A: ${value(6000)}`, `  X-B: ${value(6000)}`, `  X-C: ${value(1000)}`];
    expect(parseHeaders(lines.slice(0, 3).join('\n'))).toHaveLength(1);
    expect(() => parseHeaders(lines.join('\n'))).toThrow(/^_headers line 4: the block of \/\* sets more than 12288 bytes/);
  });

  it('refuses blocks that together could give one answer more than 12 KiB, at the first block that makes it so', () => {
    const block = (path: string) => `${path}\n  X-A: ${value(3200)}\n  X-B: ${value(1000)}`;
    // /*, /docs/* and /docs/*.html all match /docs/a.html; /blog/:slug never matches with /docs/…
    const file = [block('/*'), block('/blog/:slug'), block('/docs/*'), block('/docs/*.html')].join('\n');
    expect(() => parseHeaders(file)).toThrow(/^_headers line 10: with the blocks above it that match the same paths, an answer could get more than 12288 bytes/);
    expect(parseHeaders([block('/*'), block('/blog/:slug'), block('/docs/*')].join('\n'))).toHaveLength(3);
  });

  it('counts blocks that never match one path together as alternatives, not a sum', () => {
    // 20 pages with 12 KB of headers each: 240 KB in the file, 12 KB on any one answer.
    const file = Array.from({ length: 20 }, (_, i) => `/page-${i}\n  X-A: ${value(8000)}\n  X-B: ${value(4000)}`).join('\n');
    expect(parseHeaders(file)).toHaveLength(20);
  });

  it('refuses a redirect target past 8 KiB, naming the line', () => {
    expect(() => parseRedirects(`/a /b\n/c /${value(MAX_HEADER_VALUE_BYTES)}`)).toThrow(/^_redirects line 2: the target is 8193 bytes, more than 8192/);
  });

  it('gives every path that matches the same block the block’s own header set, never a copy', () => {
    const headers = compileHeaders(parseHeaders(`/*\n  X-A: ${value(8000)}\n/docs/*\n  X-A: b`));
    expect(headers.for('/a?x=1')).toBe(headers.for('/b'));
    expect(headers.blocksFor('/docs/x')).toEqual([0, 1]);
    expect(headers.headersOf([0, 1]).get('x-a')).toBe(`${value(8000)}, b`);
  });
});

describe('patterns: the shape a publisher may give them (issue 24 item 6)', () => {
  it.each([
    ['33 segments', '/' + Array.from({ length: MAX_PATTERN_SEGMENTS + 1 }, (_, i) => `s${i}`).join('/'), /has more than 32 segments/],
    ['5 * in one segment', '/img/*a*b*c*d*e', /has more than 4 \* inside its segments/],
    ['5 * over three segments', '/*a*b/*c*d/x*', /has more than 4 \* inside its segments/],
  ])('refuses a pattern of %s in either file, naming the line', (_what, pattern, message) => {
    expect(() => parseRedirects(`/ok /fine\n${pattern} /to`)).toThrow(new RegExp(`^_redirects line 2: .*${message.source}`));
    expect(() => parseHeaders(`/ok\n  X-A: 1\n${pattern}\n  X-A: 1`)).toThrow(new RegExp(`^_headers line 3: .*${message.source}`));
  });

  it('takes 32 segments and 4 * with a splat after them', () => {
    const deep = '/' + Array.from({ length: MAX_PATTERN_SEGMENTS - 1 }, (_, i) => `s${i}`).join('/') + '/*';
    expect(parseRedirects(`${deep} /to\n/img/*a*b*/c*d/* /x`)).toHaveLength(2);
  });

  it('quotes a long pattern cut short', () => {
    expect(() => parseRedirects(`/${'a/'.repeat(500)}b /to`)).toThrow(/ "(\/a){40}…" has more than 32 segments$/);
  });
});

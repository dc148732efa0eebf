/**
 * `_headers` (spec §11): blocks of a path pattern line followed by indented `Name: value`
 * lines, parsed once at publish. Matching blocks set their headers on the response of every
 * file they match, replacing the service's own value; several blocks setting one header
 * have their values joined with `, `.
 */
import { ValidationError } from '../errors.ts';
import { compilePatterns, parsePattern, shapeError, type Pattern, type PatternIndex } from './patterns.ts';

export type HeaderBlock = { readonly path: string; readonly headers: readonly (readonly [string, string])[] };

export const MAX_HEADER_BLOCKS = 1000;
/**
 * What a site's headers may add to one answer, in bytes of `Name: value` lines. A value up
 * to 8 KiB holds any real policy (a long CSP is 2-4 KiB). All the blocks matching one path
 * may add 12 KiB, which keeps a whole answer's head under 16 KiB, the most Node's HTTP
 * clients (fetch included) read by default; the server builds and sends it for every request.
 */
export const MAX_HEADER_VALUE_BYTES = 8 * 1024;
export const MAX_HEADER_BLOCK_BYTES = 12 * 1024;
export const MAX_RESPONSE_HEADER_BYTES = 12 * 1024;

/**
 * Headers a site may not set: they describe the transfer, the cache validator or cookies,
 * which the service owns. A site shares its registrable domain with the portal and every
 * other site, so what acts on the browser's state for the whole site is refused too:
 * cookies (`Set-Cookie2` included), `Clear-Site-Data` (which wipes other sites' and the
 * portal's cookies in Chromium), and `Refresh` (a redirect the `_redirects` rules do not see).
 */
export const FORBIDDEN_HEADERS: ReadonlySet<string> = new Set([
  'content-length',
  'content-encoding',
  'content-range',
  'transfer-encoding',
  'connection',
  'etag',
  'set-cookie',
  'set-cookie2',
  'clear-site-data',
  'refresh',
]);
/** Headers of the connection itself, which the HTTP server manages: refused like the list above (a `Trailer` would break every answer). */
const HOP_BY_HOP: ReadonlySet<string> = new Set(['trailer', 'te', 'upgrade', 'keep-alive', 'proxy-connection', 'host', 'date']);

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// Header values are sent as they are: only what HTTP allows in a field value (Node's own rule;
// a newline would split the response, a character past U+00FF would make every answer fail).
const NOT_FIELD_VALUE = /[^\t\x20-\x7e\x80-\xff]/;

const fail = (line: number, message: string): never => {
  throw new ValidationError(`_headers line ${line}: ${message}`);
};

/** The bytes a header line adds to an answer (`Name: value`); values are Latin-1, one byte a character. */
const lineBytes = (name: string, value: string) => name.length + 2 + value.length;

type ParsedBlock = { path: string; pattern: Pattern; headers: [string, string][]; bytes: number; line: number };

export function parseHeaders(text: string): HeaderBlock[] {
  const blocks: ParsedBlock[] = [];
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    const line = i + 1;
    if (raw.trim() === '' || raw.trim().startsWith('#')) continue;
    const indented = /^\s/.test(raw);
    const content = raw.trim();
    if (!indented) {
      const pattern = parsePattern(content);
      if (typeof pattern === 'string') return fail(line, pattern);
      const shape = shapeError(pattern);
      if (shape) fail(line, shape);
      blocks.push({ path: content, pattern, headers: [], bytes: 0, line });
      if (blocks.length > MAX_HEADER_BLOCKS) fail(line, `more than ${MAX_HEADER_BLOCKS} blocks`);
      continue;
    }
    const block = blocks[blocks.length - 1];
    if (!block) return fail(line, 'a header line must follow a path line');
    const colon = content.indexOf(':');
    if (colon <= 0) fail(line, 'expected Name: value');
    const name = content.slice(0, colon).trim();
    const value = content.slice(colon + 1).trim();
    if (!TOKEN.test(name)) fail(line, `${JSON.stringify(name)} is not a header name`);
    if (!settable(name)) fail(line, `${name} cannot be set by a site`);
    if (NOT_FIELD_VALUE.test(value)) fail(line, `the value of ${name} has a character a header cannot carry (control characters, or anything past U+00FF)`);
    if (value.length > MAX_HEADER_VALUE_BYTES) fail(line, `the value of ${name} is ${value.length} bytes, more than ${MAX_HEADER_VALUE_BYTES}`);
    block.bytes += lineBytes(name, value);
    if (block.bytes > MAX_HEADER_BLOCK_BYTES) fail(line, `the block of ${block.path} sets more than ${MAX_HEADER_BLOCK_BYTES} bytes of headers`);
    block.headers.push([name, value]);
  }
  for (const b of blocks) if (b.headers.length === 0) fail(b.line, `${b.path} has no header lines below it`);
  checkResponseBound(blocks);
  return blocks.map(({ path, headers }) => ({ path, headers }));
}

/**
 * Refuses a file whose blocks could add more than MAX_RESPONSE_HEADER_BYTES to one answer,
 * naming the first block with which some path would get too much (a bound over every path,
 * computed on the compiled patterns: see `PatternIndex.maxTotal`).
 */
function checkResponseBound(blocks: readonly ParsedBlock[]): void {
  const index = compilePatterns(blocks.map((b) => b.pattern));
  const weights = blocks.map((b) => b.bytes);
  const over = (count: number) => index.maxTotal(weights.slice(0, count)) > MAX_RESPONSE_HEADER_BYTES;
  if (!over(blocks.length)) return;
  // The bound only grows with each block: the first block that passes it is found by bisection.
  let [fits, exceeds] = [0, blocks.length];
  while (exceeds - fits > 1) {
    const mid = (fits + exceeds) >> 1;
    if (over(mid)) exceeds = mid;
    else fits = mid;
  }
  const block = blocks[exceeds - 1]!;
  fail(block.line, `with the blocks above it that match the same paths, an answer could get more than ${MAX_RESPONSE_HEADER_BYTES} bytes of headers`);
}

/** Headers by lower-cased name, values joined in file order. */
export type HeaderSet = ReadonlyMap<string, string>;

/**
 * The blocks compiled for requests. Many paths match the same blocks: `blocksFor` names the
 * combination a path gets and `headersOf` builds its headers, so a caller that keeps answers
 * per URL can share one set per combination instead of joining values again for every URL.
 */
export type CompiledHeaders = {
  /** The indexes of the blocks matching a path, ascending. */
  blocksFor(path: string): readonly number[];
  /** The headers of these blocks: a block's own set when there is one (kept with the rules), a new set when several combine. */
  headersOf(blocks: readonly number[]): HeaderSet;
  for(path: string): HeaderSet;
};

const NONE: HeaderSet = new Map();

export function compileHeaders(stored: readonly HeaderBlock[]): CompiledHeaders {
  // Revisions published before a header was refused still hold it: it is left out when served.
  const blocks = stored.map((b) => ({ path: b.path, headers: b.headers.filter(([name]) => settable(name)) }));
  const index: PatternIndex = compilePatterns(blocks.map((b) => parsePattern(b.path) as Pattern));
  const own: (HeaderSet | undefined)[] = [];
  const headersOf = (hits: readonly number[]): HeaderSet => {
    if (hits.length === 0) return NONE;
    if (hits.length === 1) return (own[hits[0]!] ??= join(blocks, hits));
    return join(blocks, hits);
  };
  return { blocksFor: (path) => index.matching(path), headersOf, for: (path) => headersOf(index.matching(path)) };
}

const settable = (name: string) => !FORBIDDEN_HEADERS.has(name.toLowerCase()) && !HOP_BY_HOP.has(name.toLowerCase());

function join(blocks: readonly HeaderBlock[], hits: readonly number[]): HeaderSet {
  const out = new Map<string, string>();
  for (const i of hits) {
    for (const [name, value] of blocks[i]!.headers) {
      const key = name.toLowerCase();
      const before = out.get(key);
      out.set(key, before === undefined ? value : `${before}, ${value}`);
    }
  }
  return out;
}

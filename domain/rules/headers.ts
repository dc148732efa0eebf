/**
 * `_headers` (spec §11): blocks of a path pattern line followed by indented `Name: value`
 * lines, parsed once at publish. Matching blocks set their headers on the response of every
 * file they match, replacing the service's own value; several blocks setting one header
 * have their values joined with `, `.
 */
import { ValidationError } from '../errors.ts';
import { compilePatterns, parsePattern } from './patterns.ts';

export type HeaderBlock = { readonly path: string; readonly headers: readonly (readonly [string, string])[] };

export const MAX_HEADER_BLOCKS = 1000;

/** Headers a site may not set: they describe the transfer, the cache validator or cookies, which the service owns. */
export const FORBIDDEN_HEADERS: ReadonlySet<string> = new Set(['content-length', 'content-encoding', 'content-range', 'transfer-encoding', 'connection', 'etag', 'set-cookie']);
/** Headers of the connection itself, which the HTTP server manages: refused like the list above (a `Trailer` would break every answer). */
const HOP_BY_HOP: ReadonlySet<string> = new Set(['trailer', 'te', 'upgrade', 'keep-alive', 'proxy-connection', 'host', 'date']);

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// Header values are sent as they are: only what HTTP allows in a field value (Node's own rule;
// a newline would split the response, a character past U+00FF would make every answer fail).
const NOT_FIELD_VALUE = /[^\t\x20-\x7e\x80-\xff]/;

const fail = (line: number, message: string): never => {
  throw new ValidationError(`_headers line ${line}: ${message}`);
};

export function parseHeaders(text: string): HeaderBlock[] {
  const blocks: { path: string; headers: [string, string][]; line: number }[] = [];
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    const line = i + 1;
    if (raw.trim() === '' || raw.trim().startsWith('#')) continue;
    const indented = /^\s/.test(raw);
    const content = raw.trim();
    if (!indented) {
      const pattern = parsePattern(content);
      if (typeof pattern === 'string') fail(line, pattern);
      blocks.push({ path: content, headers: [], line });
      if (blocks.length > MAX_HEADER_BLOCKS) fail(line, `more than ${MAX_HEADER_BLOCKS} blocks`);
      continue;
    }
    const block = blocks[blocks.length - 1];
    if (!block) fail(line, 'a header line must follow a path line');
    const colon = content.indexOf(':');
    if (colon <= 0) fail(line, 'expected Name: value');
    const name = content.slice(0, colon).trim();
    const value = content.slice(colon + 1).trim();
    if (!TOKEN.test(name)) fail(line, `${JSON.stringify(name)} is not a header name`);
    if (FORBIDDEN_HEADERS.has(name.toLowerCase()) || HOP_BY_HOP.has(name.toLowerCase())) fail(line, `${name} cannot be set by a site`);
    if (NOT_FIELD_VALUE.test(value)) fail(line, `the value of ${name} has a character a header cannot carry (control characters, or anything past U+00FF)`);
    block!.headers.push([name, value]);
  }
  for (const b of blocks) if (b.headers.length === 0) fail(b.line, `${b.path} has no header lines below it`);
  return blocks.map(({ path, headers }) => ({ path, headers }));
}

/** The blocks compiled for requests: the headers a path gets, names lower-cased, values joined in file order. */
export type CompiledHeaders = { for(path: string): ReadonlyMap<string, string> };

const NONE: ReadonlyMap<string, string> = new Map();

export function compileHeaders(blocks: readonly HeaderBlock[]): CompiledHeaders {
  const index = compilePatterns(blocks.map((b) => parsePattern(b.path) as Exclude<ReturnType<typeof parsePattern>, string>));
  return {
    for(path) {
      const hits = index.match(path);
      if (hits.length === 0) return NONE;
      const out = new Map<string, string>();
      for (const [i] of hits.sort((a, b) => a[0] - b[0])) {
        for (const [name, value] of blocks[i]!.headers) {
          const key = name.toLowerCase();
          const before = out.get(key);
          out.set(key, before === undefined ? value : `${before}, ${value}`);
        }
      }
      return out;
    },
  };
}

/**
 * The `<link>` tags of an HTML document, read in one linear pass. Publishers write the
 * HTML, so nothing here may backtrack: a regular expression over an unclosed tag or a
 * long run of attribute-like text costs quadratic time, and one publish could stall the
 * service (spec §2, "bounded work").
 */

export type Attributes = Record<string, string>;

const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d;
const isNameEnd = (c: number) => isSpace(c) || c === 0x3d /* = */ || c === 0x2f /* / */ || c === 0x3e; /* > */
const isWordChar = (c: number) => (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f;

/** The attribute text (between `<link` and `>`) of every complete `<link>` tag, in order. */
export function* linkTags(html: string): Generator<string> {
  const lower = html.toLowerCase();
  let i = 0;
  for (;;) {
    i = lower.indexOf('<link', i);
    if (i < 0) return;
    const start = i + 5;
    if (start < html.length && isWordChar(html.charCodeAt(start))) {
      i = start; // `<linkage>` is not a link tag
      continue;
    }
    let quote = 0;
    let j = start;
    for (; j < html.length; j++) {
      const c = html.charCodeAt(j);
      if (quote !== 0) {
        if (c === quote) quote = 0;
      } else if (c === 0x22 || c === 0x27) quote = c;
      else if (c === 0x3e) break;
    }
    // Unclosed up to the end: no later tag can be closed either, and rescanning would be quadratic.
    if (j >= html.length) return;
    yield html.slice(start, j);
    i = j + 1;
  }
}

/** The attributes of one tag's text; names lower-cased, the first of a repeated name wins (as in browsers). */
export function parseAttributes(tag: string): Attributes {
  const attrs: Attributes = {};
  const n = tag.length;
  let i = 0;
  while (i < n) {
    while (i < n && (isSpace(tag.charCodeAt(i)) || tag.charCodeAt(i) === 0x2f)) i++;
    const nameStart = i;
    while (i < n && !isNameEnd(tag.charCodeAt(i))) i++;
    const name = tag.slice(nameStart, i).toLowerCase();
    while (i < n && isSpace(tag.charCodeAt(i))) i++;
    let value = '';
    if (i < n && tag.charCodeAt(i) === 0x3d) {
      i++;
      while (i < n && isSpace(tag.charCodeAt(i))) i++;
      const q = tag.charCodeAt(i);
      if (q === 0x22 || q === 0x27) {
        const close = tag.indexOf(q === 0x22 ? '"' : "'", i + 1);
        const end = close < 0 ? n : close;
        value = tag.slice(i + 1, end);
        i = end + 1;
      } else {
        const valueStart = i;
        while (i < n && !isSpace(tag.charCodeAt(i))) i++;
        value = tag.slice(valueStart, i);
      }
    }
    if (name !== '' && !(name in attrs)) attrs[name] = value;
    if (i === nameStart) i++; // a stray '=' or similar: always move on
  }
  return attrs;
}

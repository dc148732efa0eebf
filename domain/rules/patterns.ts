/**
 * Path patterns of `_redirects` and `_headers` (spec §11), compiled once at publish into a
 * trie over path segments. A request walks the trie once, so matching costs the depth of
 * the path (times the few branches a `:name` or `*` opens), never one test per rule.
 *
 * A pattern is an absolute path whose segments are literals, `:name` (one segment), a
 * segment with `*` inside it (`*.css`: any characters but `/`), or a final `*` (the rest
 * of the path, slashes included, possibly empty: the splat).
 */

export type Segment =
  | { readonly kind: 'literal'; readonly text: string }
  | { readonly kind: 'param'; readonly name: string }
  | { readonly kind: 'glob'; readonly parts: readonly string[] }
  | { readonly kind: 'splat' };

export type Pattern = { readonly source: string; readonly segments: readonly Segment[] };

/** Values captured by a match: `:name` parameters and `splat`. */
export type Captures = Readonly<Record<string, string>>;

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Parses a pattern; returns an error sentence instead of throwing, so callers can name the line. */
export function parsePattern(source: string): Pattern | string {
  if (!source.startsWith('/')) return `${JSON.stringify(source)} must be an absolute path starting with /`;
  if (source.includes('?') || source.includes('#')) return `${JSON.stringify(source)}: query strings and fragments cannot be matched`;
  const raw = source.slice(1).split('/');
  const segments: Segment[] = [];
  for (const [i, text] of raw.entries()) {
    const last = i === raw.length - 1;
    if (text === '*') {
      if (!last) return `${JSON.stringify(source)}: * matching several segments may only end the pattern`;
      segments.push({ kind: 'splat' });
    } else if (text.startsWith(':')) {
      if (!NAME.test(text.slice(1))) return `${JSON.stringify(source)}: ${JSON.stringify(text)} is not a :name placeholder`;
      if (text.slice(1) === 'splat') return `${JSON.stringify(source)}: :splat is the name of what * matched; use *`;
      segments.push({ kind: 'param', name: text.slice(1) });
    } else if (text.includes('*')) {
      segments.push({ kind: 'glob', parts: text.split('*') });
    } else if (text === '' && !last) {
      return `${JSON.stringify(source)} has an empty segment (//)`;
    } else {
      segments.push({ kind: 'literal', text });
    }
  }
  return { source, segments };
}

function globMatches(parts: readonly string[], text: string): boolean {
  // `a*b*c`: starts with a, ends with c, b in between, in order (linear, no backtracking needed).
  const first = parts[0]!;
  const last = parts[parts.length - 1]!;
  if (!text.startsWith(first) || text.length < first.length + last.length || !text.endsWith(last)) return false;
  let at = first.length;
  const end = text.length - last.length;
  for (const part of parts.slice(1, -1)) {
    const found = text.indexOf(part, at);
    if (found < 0 || found + part.length > end) return false;
    at = found + part.length;
  }
  return true;
}

type Node = {
  readonly literals: Map<string, Node>;
  /** One branch for every `:name` here, whatever the name: names are the rules' own (see `names`). */
  param?: Node;
  globs?: { readonly parts: readonly string[]; readonly node: Node }[];
  /** Rules (by index) whose pattern ends here. */
  ends: number[];
  /** Rules (by index) whose pattern ends here with a splat. */
  splats: number[];
};

const newNode = (): Node => ({ literals: new Map(), ends: [], splats: [] });

/** Patterns compiled into a trie: every rule matching a path, or the first one (lowest index). */
export type PatternIndex = {
  /** Every matching rule, as `[index, captures]`, in no particular order (callers pick by index). */
  match(path: string): [number, Captures][];
  first(path: string): [number, Captures] | undefined;
};

export function compilePatterns(patterns: readonly Pattern[]): PatternIndex {
  const root = newNode();
  patterns.forEach((p, index) => add(root, p, index));
  // The trie records matched segments by position; each rule names them its own way.
  const names = patterns.map((p) => p.segments.flatMap((s) => (s.kind === 'param' ? [s.name] : [])));
  return { match: (path) => matchAll(root, path, names), first: (path) => firstMatch(root, path, names) };
}

function add(root: Node, pattern: Pattern, index: number): void {
  let node = root;
  for (const seg of pattern.segments) {
    switch (seg.kind) {
      case 'splat':
        node.splats.push(index);
        return;
      case 'literal': {
        let next = node.literals.get(seg.text);
        if (!next) node.literals.set(seg.text, (next = newNode()));
        node = next;
        break;
      }
      case 'param':
        node = node.param ??= newNode();
        break;
      case 'glob': {
        node.globs ??= [];
        let entry = node.globs.find((g) => g.parts.join('*') === seg.parts.join('*'));
        if (!entry) node.globs.push((entry = { parts: seg.parts, node: newNode() }));
        node = entry.node;
        break;
      }
      default: {
        const never: never = seg;
        return never;
      }
    }
  }
  node.ends.push(index);
}

/** A match before its captures are built: the rule, its `:name` values, where its splat starts. */
type Hit = { readonly index: number; readonly values: readonly string[]; readonly splatFrom?: number };

function matchAll(root: Node, path: string, names: readonly (readonly string[])[]): [number, Captures][] {
  const segments = path.replace(/^\//, '').split('/');
  const captures = (hit: Hit): Captures => {
    const named: Record<string, string> = {};
    names[hit.index]!.forEach((name, k) => (named[name] = hit.values[k]!));
    if (hit.splatFrom !== undefined) named.splat = segments.slice(hit.splatFrom).join('/');
    return named;
  };
  return hits(root, segments).map((hit) => [hit.index, captures(hit)]);
}

/** The rules matching the path's segments; captures are left to the caller, who may need only one. */
function hits(root: Node, segments: readonly string[]): Hit[] {
  const out: Hit[] = [];
  // A trie is a tree: each node is reached by one path at most, so a match visits each node once.
  const walk = (node: Node, i: number, values: readonly string[]) => {
    for (const index of node.splats) out.push({ index, values, splatFrom: i });
    if (i === segments.length) {
      for (const index of node.ends) out.push({ index, values });
      return;
    }
    const seg = segments[i]!;
    const literal = node.literals.get(seg);
    if (literal) walk(literal, i + 1, values);
    if (seg !== '') {
      if (node.param) walk(node.param, i + 1, [...values, seg]);
      for (const g of node.globs ?? []) if (globMatches(g.parts, seg)) walk(g.node, i + 1, values);
    }
  };
  walk(root, 0, []);
  return out;
}

/** The first matching rule (lowest index) with its captures, building them for that rule only. */
function firstMatch(root: Node, path: string, names: readonly (readonly string[])[]): [number, Captures] | undefined {
  const segments = path.replace(/^\//, '').split('/');
  let best: Hit | undefined;
  for (const hit of hits(root, segments)) if (!best || hit.index < best.index) best = hit;
  if (!best) return undefined;
  const named: Record<string, string> = {};
  names[best.index]!.forEach((name, k) => (named[name] = best.values[k]!));
  if (best.splatFrom !== undefined) named.splat = segments.slice(best.splatFrom).join('/');
  return [best.index, named];
}

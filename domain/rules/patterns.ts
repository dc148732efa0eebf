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
  const match = (path: string) => matchAll(root, path, names);
  return {
    match,
    first(path) {
      let best: [number, Captures] | undefined;
      for (const m of match(path)) if (!best || m[0] < best[0]) best = m;
      return best;
    },
  };
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

function matchAll(root: Node, path: string, names: readonly (readonly string[])[]): [number, Captures][] {
  const segments = path.replace(/^\//, '').split('/');
  const out: [number, Captures][] = [];
  const captures = (index: number, values: readonly string[], splat?: string): Captures => {
    const named: Record<string, string> = {};
    names[index]!.forEach((name, k) => (named[name] = values[k]!));
    if (splat !== undefined) named.splat = splat;
    return named;
  };
  // A trie is a tree: each node is reached by one path at most, so a match visits each node once.
  const walk = (node: Node, i: number, values: readonly string[]) => {
    for (const index of node.splats) out.push([index, captures(index, values, segments.slice(i).join('/'))]);
    if (i === segments.length) {
      for (const index of node.ends) out.push([index, captures(index, values)]);
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

/**
 * Path patterns of `_redirects` and `_headers` (spec §11), compiled into a trie over path
 * segments: at publish, to check the rules, and once per revision by the site server. A
 * request walks the trie once, so matching costs the depth of the path (times the few
 * branches a `:name` or `*` opens), never one test per rule.
 *
 * A pattern is an absolute path whose segments are literals, `:name` (one segment), a
 * segment with `*` inside it (`*.css`: any characters but `/`), or a final `*` (the rest
 * of the path, slashes included, possibly empty: the splat).
 */

export type Segment =
  | { readonly kind: 'literal'; readonly text: string }
  | { readonly kind: 'param'; readonly name: string }
  | { readonly kind: 'glob'; readonly text: string; readonly parts: readonly string[] }
  | { readonly kind: 'splat' };

export type Pattern = { readonly source: string; readonly segments: readonly Segment[] };

/** Values captured by a match: `:name` parameters and `splat`. */
export type Captures = Readonly<Record<string, string>>;

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const SPLAT: Segment = { kind: 'splat' };

/**
 * The shape a pattern may have. Paths are rarely ten segments deep and globs rarely have
 * two `*`; the bounds keep what a publisher chooses from costing the site server: each
 * request tests every glob of a branch it reaches, part by part, and every segment of
 * every rule is an object once the rules are loaded.
 */
export const MAX_PATTERN_SEGMENTS = 32;
/** `*` inside segments (`/img/*-*.png` has two); the final `*` of a splat is not counted. */
export const MAX_PATTERN_STARS = 4;

/** A pattern as an error sentence quotes it: long ones cut short. */
const quote = (source: string) => JSON.stringify(source.length > 80 ? `${source.slice(0, 80)}…` : source);

/** Parses a pattern; returns an error sentence instead of throwing, so callers can name the line. */
export function parsePattern(source: string): Pattern | string {
  if (!source.startsWith('/')) return `${quote(source)} must be an absolute path starting with /`;
  if (source.includes('?') || source.includes('#')) return `${quote(source)}: query strings and fragments cannot be matched`;
  const raw = source.slice(1).split('/');
  const segments: Segment[] = [];
  for (let i = 0; i < raw.length; i++) {
    const text = raw[i]!;
    const last = i === raw.length - 1;
    if (text === '*') {
      if (!last) return `${quote(source)}: * matching several segments may only end the pattern`;
      segments.push(SPLAT);
    } else if (text.startsWith(':')) {
      if (!NAME.test(text.slice(1))) return `${quote(source)}: ${quote(text)} is not a :name placeholder`;
      if (text.slice(1) === 'splat') return `${quote(source)}: :splat is the name of what * matched; use *`;
      segments.push({ kind: 'param', name: text.slice(1) });
    } else if (text.includes('*')) {
      segments.push({ kind: 'glob', text, parts: text.split('*') });
    } else if (text === '' && !last) {
      return `${quote(source)} has an empty segment (//)`;
    } else {
      segments.push({ kind: 'literal', text });
    }
  }
  return { source, segments };
}

/**
 * Whether a pattern keeps to MAX_PATTERN_SEGMENTS and MAX_PATTERN_STARS: an error sentence
 * if not. Checked at publish; rules stored before these bounds existed are still served.
 */
export function shapeError(pattern: Pattern): string | undefined {
  if (pattern.segments.length > MAX_PATTERN_SEGMENTS) return `${quote(pattern.source)} has more than ${MAX_PATTERN_SEGMENTS} segments`;
  let stars = 0;
  for (const s of pattern.segments) if (s.kind === 'glob') stars += s.parts.length - 1;
  if (stars > MAX_PATTERN_STARS) return `${quote(pattern.source)} has more than ${MAX_PATTERN_STARS} * inside its segments`;
  return undefined;
}

function globMatches(parts: readonly string[], text: string): boolean {
  // `a*b*c`: starts with a, ends with c, b in between, in order (linear, no backtracking needed).
  const first = parts[0]!;
  const last = parts[parts.length - 1]!;
  if (!text.startsWith(first) || text.length < first.length + last.length || !text.endsWith(last)) return false;
  let at = first.length;
  const end = text.length - last.length;
  for (let k = 1; k < parts.length - 1; k++) {
    const part = parts[k]!;
    const found = text.indexOf(part, at);
    if (found < 0 || found + part.length > end) return false;
    at = found + part.length;
  }
  return true;
}

/**
 * A node of the trie. Chains of segments that only one branch follows are kept on the edge
 * leading to the next branching point (a radix trie): however deep the patterns, the trie has
 * at most two nodes per pattern, and its edges point into the patterns' own segment lists.
 */
type Node = {
  /** Edges by their first segment: a literal's text, a glob's text; one for every `:name`, whatever the name (names are the rules' own, see `names`). */
  literals?: Map<string, Edge>;
  param?: Edge;
  globs?: Map<string, Edge>;
  /** Rules (by index) whose pattern ends here. */
  ends?: number[];
  /** Rules (by index) whose pattern ends here with a splat. */
  splats?: number[];
};

/** The segments `from` (included) to `to` (excluded) of one pattern, then `node`. */
type Edge = { readonly segments: readonly Segment[]; readonly from: number; to: number; node: Node };

/** Patterns compiled into a trie: every rule matching a path, or the first one (lowest index). */
export type PatternIndex = {
  /** Every matching rule, as `[index, captures]`, in no particular order (callers pick by index). */
  match(path: string): [number, Captures][];
  /** The indexes of every matching rule, ascending, without building captures. */
  matching(path: string): number[];
  first(path: string): [number, Captures] | undefined;
  /**
   * An upper bound, over every request path, of the summed weight of the rules that match
   * it together (weight 0 for rules past `weights.length`). Exact where patterns exclude each
   * other (two literals never match one segment); a `:name` and every glob of a node are
   * assumed to match whatever a sibling does. Linear in the size of the trie.
   */
  maxTotal(weights: readonly number[]): number;
};

/**
 * Builds the trie in one pass over the patterns' segments: each segment is compared once or
 * looked up once in a map (a glob by its text), so compiling costs the patterns' total length,
 * whatever they share. Publishing compiles a site's rules to check them, and the site server
 * compiles them again from the stored rules: both must stay linear, as a publisher chooses
 * the input.
 */
export function compilePatterns(patterns: readonly Pattern[]): PatternIndex {
  const root: Node = {};
  patterns.forEach((p, index) => add(root, p, index));
  // The trie records matched segments by position; each rule names them its own way.
  const names = patterns.map((p) => {
    const named: string[] = [];
    for (const s of p.segments) if (s.kind === 'param') named.push(s.name);
    return named;
  });
  return {
    match: (path) => matchAll(root, path, names),
    // A rule ends at one node and the walk reaches a node once: no index twice.
    matching: (path) => hits(root, splitPath(path)).map((h) => h.index).sort((a, b) => a - b),
    first: (path) => firstMatch(root, path, names),
    maxTotal: (weights) => maxTotal(root, weights),
  };
}

/** The edge of `node` whose first segment is `seg` (the same literal or glob text; any `:name`). */
function edgeFor(node: Node, seg: Segment): Edge | undefined {
  switch (seg.kind) {
    case 'literal':
      return node.literals?.get(seg.text);
    case 'glob':
      return node.globs?.get(seg.text);
    case 'param':
      return node.param;
    case 'splat':
      return undefined;
    default: {
      const never: never = seg;
      return never;
    }
  }
}

function attach(node: Node, edge: Edge): void {
  const seg = edge.segments[edge.from]!;
  if (seg.kind === 'literal') (node.literals ??= new Map()).set(seg.text, edge);
  else if (seg.kind === 'glob') (node.globs ??= new Map()).set(seg.text, edge);
  else node.param = edge;
}

const sameSegment = (a: Segment, b: Segment): boolean =>
  a.kind === b.kind && (a.kind === 'literal' ? a.text === (b as typeof a).text : a.kind === 'glob' ? a.text === (b as typeof a).text : true);

function add(root: Node, pattern: Pattern, index: number): void {
  const segments = pattern.segments;
  const splat = segments[segments.length - 1]?.kind === 'splat';
  const length = splat ? segments.length - 1 : segments.length;
  let node = root;
  let k = 0;
  while (k < length) {
    const edge = edgeFor(node, segments[k]!);
    if (!edge) {
      const leaf: Node = {};
      attach(node, { segments, from: k, to: length, node: leaf });
      node = leaf;
      break;
    }
    // Follow the edge as far as this pattern agrees with it; split it where they part.
    let shared = 1;
    while (edge.from + shared < edge.to && k + shared < length && sameSegment(edge.segments[edge.from + shared]!, segments[k + shared]!)) shared++;
    if (edge.from + shared < edge.to) {
      const middle: Node = {};
      attach(middle, { segments: edge.segments, from: edge.from + shared, to: edge.to, node: edge.node });
      edge.to = edge.from + shared;
      edge.node = middle;
    }
    node = edge.node;
    k += shared;
  }
  if (splat) (node.splats ??= []).push(index);
  else (node.ends ??= []).push(index);
}

const splitPath = (path: string): string[] => path.replace(/^\//, '').split('/');

/** A match before its captures are built: the rule, its `:name` values, where its splat starts. */
type Hit = { readonly index: number; readonly values: readonly string[]; readonly splatFrom?: number };

function capturesOf(hit: Hit, segments: readonly string[], names: readonly (readonly string[])[]): Captures {
  const named: Record<string, string> = {};
  names[hit.index]!.forEach((name, k) => (named[name] = hit.values[k]!));
  if (hit.splatFrom !== undefined) named.splat = segments.slice(hit.splatFrom).join('/');
  return named;
}

function matchAll(root: Node, path: string, names: readonly (readonly string[])[]): [number, Captures][] {
  const segments = splitPath(path);
  return hits(root, segments).map((hit) => [hit.index, capturesOf(hit, segments, names)]);
}

/** Does one request segment match one pattern segment? (A splat never sits on an edge.) */
function segmentMatches(seg: Segment, text: string): boolean {
  if (seg.kind === 'literal') return seg.text === text;
  if (text === '') return false;
  return seg.kind === 'param' || (seg.kind === 'glob' && globMatches(seg.parts, text));
}

/**
 * The rules matching the path's segments; captures are left to the caller, who may need only
 * one. A trie is a tree and each of its positions sits at one depth, so a walk tests each
 * segment of the trie at most once: a request costs at most the size of the trie, whatever
 * the path. The walk keeps its own stack: a path may have thousands of segments.
 */
function hits(root: Node, segments: readonly string[]): Hit[] {
  const out: Hit[] = [];
  const todo: [Node, number, readonly string[]][] = [[root, 0, []]];
  const follow = (edge: Edge, i: number, values: readonly string[]) => {
    let captured = values;
    for (let k = edge.from; k < edge.to; k++) {
      const seg = edge.segments[k]!;
      const text = segments[i + k - edge.from];
      if (text === undefined || !segmentMatches(seg, text)) return;
      if (seg.kind === 'param') captured = [...captured, text];
    }
    todo.push([edge.node, i + edge.to - edge.from, captured]);
  };
  for (let next = todo.pop(); next; next = todo.pop()) {
    const [node, i, values] = next;
    for (const index of node.splats ?? []) out.push({ index, values, splatFrom: i });
    if (i === segments.length) {
      for (const index of node.ends ?? []) out.push({ index, values });
      continue;
    }
    const seg = segments[i]!;
    const literal = node.literals?.get(seg);
    if (literal) follow(literal, i, values);
    if (seg === '') continue;
    if (node.param) follow(node.param, i, values);
    for (const edge of node.globs?.values() ?? []) follow(edge, i, values);
  }
  return out;
}

/** The first matching rule (lowest index) with its captures, building them for that rule only. */
function firstMatch(root: Node, path: string, names: readonly (readonly string[])[]): [number, Captures] | undefined {
  const segments = splitPath(path);
  let best: Hit | undefined;
  for (const hit of hits(root, segments)) if (!best || hit.index < best.index) best = hit;
  return best && [best.index, capturesOf(best, segments, names)];
}

/** `maxTotal` of the index: children before parents, with an explicit stack (the trie may be deep). */
function maxTotal(root: Node, weights: readonly number[]): number {
  const weigh = (indexes: readonly number[] | undefined) => (indexes ?? []).reduce((sum, i) => sum + (weights[i] ?? 0), 0);
  const edges = (node: Node): Edge[] => [...(node.literals?.values() ?? []), ...(node.param ? [node.param] : []), ...(node.globs?.values() ?? [])];
  const bound = new Map<Node, number>();
  const todo: [Node, boolean][] = [[root, false]];
  for (let next = todo.pop(); next; next = todo.pop()) {
    const [node, childrenDone] = next;
    if (!childrenDone) {
      todo.push([node, true]);
      for (const edge of edges(node)) todo.push([edge.node, false]);
      continue;
    }
    // The path ends here, or goes on along one edge: a segment equals one literal at most,
    // while the `:name` and the globs may all match it too. (Nothing ends inside an edge.)
    let literal = 0;
    for (const edge of node.literals?.values() ?? []) literal = Math.max(literal, bound.get(edge.node)!);
    let rest = node.param ? bound.get(node.param.node)! : 0;
    for (const edge of node.globs?.values() ?? []) rest += bound.get(edge.node)!;
    bound.set(node, weigh(node.splats) + Math.max(weigh(node.ends), literal + rest));
  }
  return bound.get(root)!;
}

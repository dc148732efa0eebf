/**
 * What a publisher's `_redirects` and `_headers` cost the service (issue 24 item 6): rule
 * files are hostile input, compiled by the site server for every revision it serves and
 * walked for every request. Work is counted, not timed: every pattern handed to the trie
 * counts each read of its segments, their fields and a glob's parts, so building the trie
 * and answering a path are bounded by the size of the rules whatever the machine is doing.
 * (The quadratic de-duplication this replaces re-read every glob of a node for each new one.)
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compilePatterns, parsePattern, type Pattern, type Segment } from '../../domain/rules/patterns.ts';

type Counter = { reads: number };

/** A view of a value that counts every property read (array items, `length`, fields), deeply. */
function counting<T extends object>(value: T, counter: Counter): T {
  return new Proxy(value, {
    get(target, key, receiver) {
      const got = Reflect.get(target, key, receiver);
      if (typeof key === 'symbol') return got;
      counter.reads++;
      return got !== null && typeof got === 'object' ? counting(got as object, counter) : got;
    },
  });
}

const parse = (source: string): Pattern => {
  const p = parsePattern(source);
  if (typeof p === 'string') throw new Error(p);
  return p;
};

/** What the trie holds: a unit per pattern, per segment and per glob part. */
const sizeOf = (patterns: readonly Pattern[]) =>
  patterns.reduce((n, p) => n + 1 + p.segments.reduce((m, s) => m + 1 + (s.kind === 'glob' ? s.parts.length : 0), 0), 0);

/** Compiles counted patterns: the reads it took, and the index (whose matching keeps counting into `counter`). */
function compileCounted(patterns: readonly Pattern[]) {
  const counter: Counter = { reads: 0 };
  const index = compilePatterns(patterns.map((p) => ({ source: p.source, segments: counting(p.segments as Segment[], counter) })));
  const compileReads = counter.reads;
  const matchReads = (path: string) => {
    counter.reads = 0;
    index.match(path);
    return counter.reads;
  };
  return { index, compileReads, matchReads };
}

/** The rules a path matches, read off the spec one rule at a time (the reference for the trie). */
function reference(patterns: readonly Pattern[], path: string): number[] {
  const segs = path.replace(/^\//, '').split('/');
  const matches = (p: Pattern) => {
    for (const [k, seg] of p.segments.entries()) {
      if (seg.kind === 'splat') return true;
      const text = segs[k];
      if (text === undefined) return false;
      if (seg.kind === 'literal' && text !== seg.text) return false;
      if (seg.kind === 'param' && text === '') return false;
      const glob = seg.kind === 'glob' && new RegExp(`^${seg.parts.map((x) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[^/]*')}$`);
      if (glob && (text === '' || !glob.test(text))) return false;
    }
    return p.segments.length === segs.length;
  };
  return patterns.flatMap((p, i) => (matches(p) ? [i] : []));
}

// Small alphabets, so that generated rules share prefixes, collide, and split each other's edges.
const literal = fc.constantFrom('a', 'b', 'ab', 'x');
const glob = fc
  .array(fc.constantFrom('', 'a', 'b', 'ab'), { minLength: 2, maxLength: 5 })
  .map((parts) => parts.join('*'))
  .filter((g) => g !== '*');
const inner = fc.oneof(literal, literal, fc.constantFrom(':p', ':q'), glob);
const last = fc.oneof(inner, fc.constant('*'), fc.constant(''));
const patternArb = fc.tuple(fc.array(inner, { maxLength: 6 }), last).map(([segs, end]) => parse('/' + [...segs, end].join('/')));
const pathArb = fc.array(fc.constantFrom('a', 'b', 'ab', 'ba', 'aab', 'x', 'xab', ''), { maxLength: 8 }).map((s) => '/' + s.join('/'));

/** Rule files built the way an attacker would: many rules under one path node, deep chains, repeats. */
const ADVERSARIAL: Record<string, string[]> = {
  'the issue’s attack: 1,000 globs of 240 parts under one node': Array.from({ length: 1000 }, (_, i) => `/g/r${i}${'*x'.repeat(240)}`),
  '1,000 globs of 4 stars under one node, alike but for the last part': Array.from({ length: 1000 }, (_, i) => `/g/*x*x*x*y${i}`),
  '1,000 chains of 32 segments that split each other': Array.from({ length: 1000 }, (_, i) => `${'/a'.repeat(31 - (i % 31))}/z${i}`),
  'one pattern 1,000 times': Array.from({ length: 1000 }, () => '/a/:p/*x*/b/*'),
  ':name and globs interleaved, 32 deep': Array.from({ length: 1000 }, (_, i) => '/' + Array.from({ length: 32 }, (_, k) => (k % 3 === 0 ? ':p' : k % 3 === 1 ? `*${k}*` : `l${i % (k + 1)}`)).join('/')),
};

describe('compiling rules costs their size, whatever they share', () => {
  it.each(Object.entries(ADVERSARIAL))('%s', (_name, sources) => {
    const patterns = sources.map(parse);
    const { compileReads, matchReads } = compileCounted(patterns);
    const size = sizeOf(patterns);
    expect(compileReads).toBeLessThanOrEqual(8 * size);
    // A request reaches each place of the trie at most once: even paths made to walk every branch.
    for (const path of ['/g/' + 'x'.repeat(3000) + 'y7', '/' + Array(40).fill('a').join('/'), '/a/a/ab/b/c', '/g/rxy'])
      expect(matchReads(path), path).toBeLessThanOrEqual(8 * size);
  });

  it('for generated rule sets, with matches equal to reading each rule on its own', () => {
    fc.assert(
      fc.property(fc.array(patternArb, { minLength: 1, maxLength: 120 }), fc.array(pathArb, { minLength: 1, maxLength: 20 }), (patterns, paths) => {
        const { index, compileReads, matchReads } = compileCounted(patterns);
        const size = sizeOf(patterns);
        expect(compileReads).toBeLessThanOrEqual(8 * size);
        for (const path of paths) {
          expect(index.matching(path), path).toEqual(reference(patterns, path));
          expect(index.match(path).map(([i]) => i).sort((a, b) => a - b)).toEqual(reference(patterns, path));
          expect(matchReads(path)).toBeLessThanOrEqual(8 * size);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('captures the :name values and the splat of the first matching rule', () => {
    fc.assert(
      fc.property(fc.array(patternArb, { minLength: 1, maxLength: 60 }), pathArb, (patterns, path) => {
        const first = compilePatterns(patterns).first(path);
        const expected = reference(patterns, path)[0];
        expect(first?.[0]).toBe(expected);
        if (first === undefined) return;
        const segs = path.replace(/^\//, '').split('/');
        const captured: Record<string, string> = {};
        patterns[expected!]!.segments.forEach((s, k) => {
          if (s.kind === 'param') captured[s.name] = segs[k]!;
          if (s.kind === 'splat') captured.splat = segs.slice(k).join('/');
        });
        expect(first[1]).toEqual(captured);
      }),
      { numRuns: 300 },
    );
  });
});

describe('the bound on what matching rules add up to', () => {
  it('is never below what one path gets', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(patternArb, fc.nat(100)), { minLength: 1, maxLength: 80 }), fc.array(pathArb, { maxLength: 30 }), (rules, paths) => {
        const patterns = rules.map(([p]) => p);
        const weights = rules.map(([, w]) => w);
        const bound = compilePatterns(patterns).maxTotal(weights);
        for (const path of paths) expect(reference(patterns, path).reduce((n, i) => n + weights[i]!, 0)).toBeLessThanOrEqual(bound);
      }),
      { numRuns: 300 },
    );
  });

  it('is exact for rules that exclude each other', () => {
    const patterns = Array.from({ length: 1000 }, (_, i) => parse(`/docs/page-${i}/${i % 2 ? ':part' : 'index.html'}`));
    expect(compilePatterns(patterns).maxTotal(patterns.map((_, i) => i))).toBe(999);
    // …and sums what may match together: /docs/* with any page.
    expect(compilePatterns([...patterns, parse('/docs/*')]).maxTotal([...patterns.map((_, i) => i), 5])).toBe(1004);
  });
});

/**
 * The favicon scanner reads publisher HTML at publish time, so its cost must be linear:
 * ten times the input may take about ten times as long, never a hundred (spec §2). Inputs
 * are built from the fragments that make backtracking patterns quadratic: unclosed tags,
 * unbalanced quotes, attribute-like runs, long `sizes` and data URIs.
 */
import fc from 'fast-check';
import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { faviconCandidates } from '../../domain/favicon.ts';

const FRAGMENTS = ['<link', '<link ', '<link a', '<LINK rel=icon ', '"', "'", '=', 'a', ' ', 'rel=icon href=', 'sizes="1', '1', 'x', '>', '<link rel="icon" href="i.png">', 'data:image/png;', ';', ','];

/** The fastest of a few runs: the least disturbed by the machine's other work. */
function cost(html: string): number {
  let best = Infinity;
  for (let i = 0; i < 7; i++) {
    const t0 = performance.now();
    faviconCandidates(html);
    best = Math.min(best, performance.now() - t0);
  }
  return best;
}

describe('favicon scanner cost', () => {
  it('grows about linearly with the input, whatever it is made of', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...FRAGMENTS), { minLength: 1, maxLength: 6 }), (unit) => {
        const piece = unit.join('');
        const small = piece.repeat(Math.ceil(20_000 / piece.length));
        const large = small.repeat(10);
        cost(small); // warm the JIT on this shape
        const ratio = cost(large) / Math.max(cost(small), 0.2);
        // Linear is ~10; a quadratic scan would be ~100. Room for a busy machine's noise (a CI run
        // measured 36 for a linear input), none for a square.
        expect(ratio, JSON.stringify(piece)).toBeLessThan(50);
      }),
      { numRuns: 40 },
    );
  });

  it('handles the attack input of 512 KiB in well under a second', () => {
    const t0 = performance.now();
    faviconCandidates('<link a'.repeat(75_000));
    faviconCandidates(`<link rel=icon sizes="${'1'.repeat(512 * 1024)}`);
    faviconCandidates(`<link ${'a'.repeat(512 * 1024)}>`);
    expect(performance.now() - t0).toBeLessThan(1_000);
  });
});

/**
 * A filter's kept matches (app/queries/filtered-tree.ts `Matches`) brought up to date from the
 * sites changed since: always what arranging the new matches afresh gives, and after a change
 * that touches one group, every other group's list and the layout are the ones already kept
 * (so the chunks cut from them are not cut again).
 */
import { describe, expect, it } from 'vitest';
import { Matches } from '../../app/queries/filtered-tree.ts';
import type { SiteRef } from '../../projections/queries.ts';
import { prng } from '../bench/support.ts';

const GROUPS = ['', 'a', 'a/b', 'a/b/c', 'd', 'd/e'];
const SLUGS = ['b', 'c', 'e', 'x', 'y', 'z'];

const ref = (group: string, slug: string, revision: number): SiteRef => ({ path: group === '' ? slug : `${group}/${slug}`, group, slug, revision });
const shape = (m: Matches) => ({ count: m.count, groups: [...m.groups].sort(([a], [b]) => (a < b ? -1 : 1)), children: [...m.children()].sort(([a], [b]) => (a < b ? -1 : 1)) });

describe('kept matches brought up to date', () => {
  it('are the matches arranged afresh, after any change', () => {
    const rand = prng(3);
    const live = new Map<string, SiteRef>();
    let kept = Matches.of('0', []);
    for (let step = 1; step <= 400; step++) {
      const changed = new Set<string>();
      for (let k = 0; k < 1 + Math.floor(rand() * 3); k++) {
        const r = ref(GROUPS[Math.floor(rand() * GROUPS.length)]!, SLUGS[Math.floor(rand() * SLUGS.length)]!, step);
        changed.add(r.path);
        if (rand() < 0.4) live.delete(r.path);
        else live.set(r.path, r);
      }
      const fresh = [...changed].flatMap((p) => (live.has(p) ? [live.get(p)!] : []));
      kept = kept.updated(String(step), changed, fresh);
      expect(shape(kept), `step ${step}`).toEqual(shape(Matches.of(String(step), [...live.values()])));
      expect(kept.version).toBe(String(step));
    }
  });

  it('keep every list the change did not touch, and the layout while no group came or went', () => {
    const before = Matches.of('1', [ref('a', 'x', 1), ref('a', 'y', 1), ref('a/b', 'x', 1), ref('d', 'z', 1)]);
    const layout = before.children();
    const patched = before.updated('2', ['a/b/x'], [ref('a/b', 'x', 2)]);
    expect(patched.groups.get('a')).toBe(before.groups.get('a'));
    expect(patched.groups.get('d')).toBe(before.groups.get('d'));
    expect(patched.groups.get('a/b')).not.toBe(before.groups.get('a/b'));
    expect(patched.children()).toBe(layout);

    // A site that neither matched nor matches: nothing is arranged again.
    const unrelated = patched.updated('3', ['d/q'], []);
    expect(unrelated.groups).toBe(patched.groups);
    expect(unrelated.children()).toBe(layout);

    // A group's first match: a new node, so a new layout.
    const grown = unrelated.updated('4', ['d/e/w'], [ref('d/e', 'w', 4)]);
    expect(grown.children().get('d')).toEqual(['e']);
    expect(grown.count).toBe(5);
  });
});

import { describe, expect, it } from 'vitest';
import { prng } from '../bench/support.ts';
import { applyTreeChanges, ROOT, treeNodesOf, type TreeNodeDoc, type TreeSiteChange } from '../../projections/site-tree.ts';

/** Nodes as a store keeps them: the result of each batch written over the last. */
function store(nodes: Map<string, TreeNodeDoc>, changes: readonly TreeSiteChange[]): Map<string, TreeNodeDoc> {
  const loaded = new Map([...treeNodesOf(changes)].flatMap((p) => (nodes.has(p) ? [[p, nodes.get(p)!] as const] : [])));
  const out = new Map(nodes);
  for (const [path, node] of applyTreeChanges(loaded, changes)) {
    if (node) out.set(path, node);
    else out.delete(path);
  }
  return out;
}

/** The tree built at once from the final entries of every site: what incremental updates must end at. */
function fromScratch(sites: Map<string, TreeSiteChange>): Map<string, TreeNodeDoc> {
  return store(new Map(), [...sites.values()].filter((c) => c.entry));
}

const GROUPS = ['', 'docs', 'docs/api', 'team', 'team/a', 'team/b', 'x/y'];
const SLUGS = ['app', 'api', 'a', 'b', 'docs', 'team', 'y', 'z'];

describe('the group tree kept from site changes', () => {
  it('counts live and visible sites per subtree and removes a group with its last site', () => {
    let nodes = store(new Map(), [
      { group: 'docs', slug: 'app', entry: { slug: 'app', revision: 1, hidden: false } },
      { group: 'docs/api', slug: 'v1', entry: { slug: 'v1', revision: 0, hidden: true } },
      { group: '', slug: 'docs', entry: { slug: 'docs', revision: 3, hidden: false } },
    ]);
    expect(nodes.get(ROOT)).toEqual({ path: '', sites: [{ slug: 'docs', revision: 3, hidden: false }], groups: [{ name: 'docs', live: 2, visible: 1 }], live: 3, visible: 2 });
    expect(nodes.get('docs')!.groups).toEqual([{ name: 'api', live: 1, visible: 0 }]);
    nodes = store(nodes, [{ group: 'docs/api', slug: 'v1', entry: undefined }]);
    expect(nodes.has('docs/api')).toBe(false);
    expect(nodes.get('docs')).toEqual({ path: 'docs', sites: [{ slug: 'app', revision: 1, hidden: false }], groups: [], live: 1, visible: 1 });
    expect(nodes.get(ROOT)!.live).toBe(2);
  });

  it('ends where a rebuild from the final state ends, whatever the batches, and a batch applied twice changes nothing', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const rand = prng(seed);
      const pick = <T,>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
      const sites = new Map<string, TreeSiteChange>();
      let nodes = new Map<string, TreeNodeDoc>();
      let revision = 0;
      for (let batch = 0; batch < 30; batch++) {
        const changes: TreeSiteChange[] = [];
        for (let i = Math.floor(rand() * 6); i >= 0; i--) {
          const group = pick(GROUPS);
          const slug = pick(SLUGS);
          const change = { group, slug, entry: rand() < 0.3 ? undefined : { slug, revision: ++revision, hidden: rand() < 0.3 } };
          changes.push(change);
          sites.set(`${group}/${slug}`, change);
        }
        nodes = store(nodes, changes);
        expect(store(nodes, changes), `seed ${seed}, batch ${batch}: applied twice`).toEqual(nodes);
        expect(nodes, `seed ${seed}, batch ${batch}`).toEqual(fromScratch(sites));
      }
    }
  });
});

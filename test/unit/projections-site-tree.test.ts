import { describe, expect, it } from 'vitest';
import { prng } from '../bench/support.ts';
import type { StreamRecord } from '../../projections/documents.ts';
import { applyTreeChanges, ROOT, treeNodesOf, treeStateOf, type TreeNodeDoc, type TreeSiteChange } from '../../projections/site-tree.ts';

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

/** The nodes with an empty root left out: once stored, the root stays when its last site goes; a tree built from nothing has none. */
const shown = (nodes: Map<string, TreeNodeDoc>) => new Map([...nodes].filter(([path, node]) => path !== ROOT || node.live > 0));

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
        expect(shown(nodes), `seed ${seed}, batch ${batch}`).toEqual(fromScratch(sites));
      }
    }
  });

  it('comes back in line when a batch comes again after a crash that wrote some of its nodes (the stored state of each touched site)', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const rand = prng(seed);
      const pick = <T,>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
      const sites = new Map<string, TreeSiteChange>();
      let nodes = new Map<string, TreeNodeDoc>();
      let revision = 0;
      for (let batch = 0; batch < 20; batch++) {
        const records: StreamRecord[] = [];
        for (let i = Math.floor(rand() * 6); i >= 0; i--) {
          const group = pick(GROUPS);
          const slug = pick(SLUGS);
          const roll = rand();
          const stream = `site-${group ? `${group.replaceAll('/', '.')}.` : ''}${slug}`;
          // live, in the trash, or purged (no document: the stream names the site)
          const doc = roll < 0.15 ? null : { group, slug, status: roll < 0.35 ? 'quarantined' : 'live', meta: { hidden: rand() < 0.3 } };
          records.push({ stream, kind: 'site', revision: ++revision, doc } as unknown as StreamRecord);
          sites.set(`${group}/${slug}`, { group, slug, entry: doc && doc.status === 'live' ? { slug, revision, hidden: doc.meta.hidden } : undefined });
        }
        const changes = treeStateOf(records);
        const written = applyTreeChanges(new Map([...treeNodesOf(changes)].flatMap((p) => (nodes.has(p) ? [[p, nodes.get(p)!] as const] : []))), changes);
        // The crash: only some of the changed nodes were written.
        const partial = new Map(nodes);
        for (const [path, node] of written) {
          if (rand() < 0.5) continue;
          if (node) partial.set(path, node);
          else partial.delete(path);
        }
        nodes = store(partial, treeStateOf(records));
        expect(shown(nodes), `seed ${seed}, batch ${batch}`).toEqual(fromScratch(sites));
      }
    }
  });

  it('applies a batch of thousands of changes to one group (one merge) as it applies them one at a time', () => {
    for (let seed = 1; seed <= 10; seed++) {
      const rand = prng(seed);
      let one = new Map<string, TreeNodeDoc>();
      // A stored tree to start from, so that the batch replaces, removes and inserts.
      const start: TreeSiteChange[] = [];
      for (let i = 0; i < 400; i++) start.push({ group: i % 2 ? 'big' : 'big/sub', slug: `s${Math.floor(rand() * 600)}`, entry: { slug: '', revision: i, hidden: rand() < 0.2 } });
      for (const c of start) c.entry && ((c.entry as { slug: string }).slug = c.slug);
      one = store(one, start);
      let batched = new Map(one);
      const changes: TreeSiteChange[] = [];
      for (let i = 0; i < 3000; i++) {
        const slug = `s${Math.floor(rand() * 600)}`;
        changes.push({ group: rand() < 0.5 ? 'big' : 'big/sub', slug, entry: rand() < 0.3 ? undefined : { slug, revision: 1000 + i, hidden: rand() < 0.2 } });
      }
      for (const c of changes) one = store(one, [c]);
      batched = store(batched, changes);
      expect(batched, `seed ${seed}`).toEqual(one);
    }
  });
});

import { LRUCache } from 'lru-cache';
import type { SiteDoc } from '../../projections/documents.ts';
import type { Queries, SiteQuery, SiteRef } from '../../projections/queries.ts';
import { compressed, stored, type Segment } from './gzip-segments.ts';
import { chunked, COMMA, NODE_CLOSE, SITES_OPEN, type ListingTree, type SiteBytes } from './listing-tree.ts';

/** Compressed chunks kept, in bytes: the trees of a few dozen filtered listings of 100,000 sites. */
const CHUNKS_BUDGET = 16 * 1024 * 1024;
/** Matches kept over all filters (about 150 bytes each). */
const MATCHES_KEPT = 200_000;

type Matches = { readonly version: string; readonly refs: ReadonlyMap<string, SiteRef> };

type Node = { readonly name: string; readonly path: string; site?: SiteRef; readonly groups: Map<string, Node>; readonly sites: SiteRef[] };

/**
 * The group trees of filtered listings (`q`, `tag`, `group`: `tree` holds every match, spec
 * §5) as compressed pieces, made from the matches' addresses and revisions (`siteMatches`)
 * rather than from their documents. The sites of each node are cut into chunks as the
 * unfiltered tree's are (about 64 sites, boundaries by the slugs' hashes), and a chunk's
 * compressed bytes are kept by what they are made of (audience, sites and their revisions),
 * whichever listing made them: after a write, a filtered listing fetches, serializes and
 * compresses only the chunk that holds the changed site, if it matches at all, and no
 * document of any other match. Bounded by bytes, least recently used out.
 *
 * The matches of each filter are kept too, as of a version of the instance's group tree
 * (ListingTree), and brought up to date from the sites the tree says changed since: after a
 * write, the read model is asked about the changed sites alone, not for every match (a
 * search would read every site's row). Bounded by their number, least recently used out.
 *
 * Arranged as `buildTree` arranges documents (projections/site-list.ts), to the same bytes.
 */
export class FilteredTrees {
  private readonly chunks: LRUCache<string, Segment>;
  private readonly matchesOf = new LRUCache<string, Matches>({ maxSize: MATCHES_KEPT, sizeCalculation: (m) => m.refs.size + 1 });
  private probe = '';

  constructor(
    private readonly queries: Pick<Queries, 'getSites' | 'siteMatches'>,
    private readonly tree: ListingTree,
    private readonly siteBytes: SiteBytes,
    budget = CHUNKS_BUDGET,
  ) {
    this.chunks = new LRUCache<string, Segment>({ maxSize: budget, sizeCalculation: (s) => s.deflated.length + 64 });
  }

  /**
   * Every live site `query` matches, as of the group tree's last sync or later (so after
   * every write that returned before the call). Kept per filter and brought up to date with
   * the sites changed since; asked whole when the tree's record of changes does not reach
   * back to the kept version (or nothing is kept). Never changed in place: a request still
   * arranging an older list is not disturbed.
   */
  async matches(query: SiteQuery): Promise<SiteRef[]> {
    await this.tree.sync();
    const key = JSON.stringify([query.q ?? null, query.tag ?? null, query.group ?? null, query.includeHidden]);
    const version = this.tree.synced() ?? '';
    const kept = this.matchesOf.get(key);
    const changed = kept ? this.tree.changedSince(kept.version) : undefined;
    let refs: Map<string, SiteRef>;
    if (kept && changed) {
      if (changed.size === 0) return [...kept.refs.values()];
      const fresh = await this.queries.siteMatches(query, [...changed]);
      refs = new Map(kept.refs);
      for (const path of changed) refs.delete(path);
      for (const r of fresh) refs.set(r.path, r);
    } else {
      refs = new Map((await this.queries.siteMatches(query)).map((r) => [r.path, r]));
    }
    const now = this.matchesOf.get(key);
    if (!now || now.version <= version) this.matchesOf.set(key, { version, refs });
    return [...refs.values()];
  }

  /**
   * The tree of these matches as `admin` (or anyone else) sees its sites. `probe` names what
   * the sites' bytes depend on besides the sites (their URLs' shape): when it changes, every
   * chunk is made again.
   */
  async segments(matches: readonly SiteRef[], admin: boolean, probe: string): Promise<Segment[]> {
    if (probe !== this.probe) {
      this.chunks.clear();
      this.probe = probe;
    }
    const audience = admin ? 'a' : 'm';
    // The pieces in order; a chunk not kept yet stands as its key until it is made.
    const plan: (Segment | string)[] = [];
    const made = new Map<string, Segment>();
    const missing = new Map<string, readonly SiteRef[]>();
    const chunk = (sites: readonly SiteRef[]): void => {
      const key = `${audience}${sites.map((s) => `${s.path}@${s.revision}`).join(' ')}`;
      const kept = made.get(key) ?? this.chunks.get(key);
      if (kept) made.set(key, kept);
      else missing.set(key, sites);
      plan.push(key);
    };
    const walk = (node: Node): void => {
      plan.push(stored(Buffer.from(`{"name":${JSON.stringify(node.name)},"path":${JSON.stringify(node.path)},${node.site ? '"site":' : ''}`)));
      if (node.site) {
        chunk([node.site]);
        plan.push(COMMA);
      }
      plan.push(GROUPS_OPEN);
      [...node.groups.values()].sort(byName).forEach((group, i) => {
        if (i > 0) plan.push(COMMA);
        walk(group);
      });
      plan.push(SITES_OPEN);
      chunked([...node.sites].sort(bySlug)).forEach((run, i) => {
        if (i > 0) plan.push(COMMA);
        chunk(run);
      });
      plan.push(NODE_CLOSE);
    };
    walk(arrange(matches));

    if (missing.size > 0) {
      const docs = new Map<string, SiteDoc>();
      for (const doc of await this.queries.getSites([...missing.values()].flatMap((sites) => sites.map((s) => s.path)))) docs.set(doc.path, doc);
      for (const [key, sites] of missing) {
        const parts: Buffer[] = [];
        let whole = true;
        for (const s of sites) {
          const doc = docs.get(s.path);
          // A site gone between the two reads is left out (and its chunk not kept): the listing's version has moved.
          if (!doc || doc.status !== 'live') {
            whole = false;
            continue;
          }
          if (parts.length > 0) parts.push(Buffer.from(','));
          parts.push(this.siteBytes(doc, admin));
        }
        const segment = compressed(Buffer.concat(parts));
        made.set(key, segment);
        if (whole) this.chunks.set(key, segment);
      }
    }
    return plan.map((p) => (typeof p === 'string' ? made.get(p)! : p));
  }
}

const GROUPS_OPEN = stored(Buffer.from('"groups":['));

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const byName = (a: Node, b: Node): number => compare(a.name, b.name);
const bySlug = (a: SiteRef, b: SiteRef): number => compare(a.slug, b.slug);

/**
 * The matches as `buildTree` arranges sites: a node for each group that holds a match and
 * for each of its ancestors; a match whose path is a node's is that node's `site`, any
 * other is in its group's `sites`.
 */
function arrange(matches: readonly SiteRef[]): Node {
  const root: Node = { name: '', path: '', groups: new Map(), sites: [] };
  const nodes = new Map<string, Node>([['', root]]);
  const nodeOf = (group: string): Node => {
    const existing = nodes.get(group);
    if (existing) return existing;
    const cut = group.lastIndexOf('/');
    const parent = nodeOf(cut < 0 ? '' : group.slice(0, cut));
    const node: Node = { name: group.slice(cut + 1), path: group, groups: new Map(), sites: [] };
    parent.groups.set(node.name, node);
    nodes.set(group, node);
    return node;
  };
  for (const m of matches) nodeOf(m.group);
  for (const m of matches) {
    const own = nodes.get(m.path);
    if (own) own.site = m;
    else nodes.get(m.group)!.sites.push(m);
  }
  return root;
}

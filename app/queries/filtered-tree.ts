import { LRUCache } from 'lru-cache';
import type { SiteDoc } from '../../projections/documents.ts';
import type { Queries, SiteQuery, SiteRef } from '../../projections/queries.ts';
import { childPath, parentOf, ROOT } from '../../projections/site-tree.ts';
import { stored, compressed, type Segment } from './gzip-segments.ts';
import { chunked, COMMA, NODE_CLOSE, SITES_OPEN, type ListingTree, type SiteBytes } from './listing-tree.ts';

/** Compressed chunks kept, in bytes: the trees of a few dozen filtered listings of 100,000 sites. */
const CHUNKS_BUDGET = 16 * 1024 * 1024;
/** Matches kept over all filters (about 200 bytes each, with their arrangement). */
const MATCHES_KEPT = 200_000;

/** A chunk's compressed bytes as each audience sees its sites (`updated_by` for admins only). */
type Chunk = { readonly a?: Segment; readonly m?: Segment };

/** A group's matches cut into chunks as the tree lists them: the sites whose path is a child node's are that node's `site`, not listed here. */
type Runs = { readonly children: string; readonly runs: readonly (readonly SiteRef[])[]; readonly keys: readonly string[] };

/**
 * The matches of one filter as of a version of the instance's group tree, arranged as the
 * tree shows them: each group's matches sorted by slug, and each node's child groups. Never
 * changed in place (a request still rendering an older one is not disturbed); a new one
 * shares every group its update did not touch.
 */
export class Matches {
  private layout?: ReadonlyMap<string, readonly string[]>;

  private constructor(
    readonly version: string,
    /** Each group's own matches (not beneath it), sorted by slug; no empty list. */
    readonly groups: ReadonlyMap<string, readonly SiteRef[]>,
    readonly count: number,
    layout?: ReadonlyMap<string, readonly string[]>,
  ) {
    this.layout = layout;
  }

  static of(version: string, refs: readonly SiteRef[]): Matches {
    const groups = new Map<string, SiteRef[]>();
    for (const r of refs) {
      const list = groups.get(r.group);
      if (list) list.push(r);
      else groups.set(r.group, [r]);
    }
    for (const list of groups.values()) list.sort(bySlug);
    return new Matches(version, groups, refs.length);
  }

  /**
   * These matches at `version`: the sites at `changed` paths replaced by `fresh` (those of
   * them that match now). A group whose matches come out the same keeps its list, and the
   * layout is kept when no group came or went.
   */
  updated(version: string, changed: Iterable<string>, fresh: readonly SiteRef[]): Matches {
    const touched = new Map<string, { gone: Set<string>; added: SiteRef[] }>();
    const touch = (group: string) => {
      let t = touched.get(group);
      if (!t) touched.set(group, (t = { gone: new Set(), added: [] }));
      return t;
    };
    for (const path of changed) {
      const cut = path.lastIndexOf('/');
      touch(cut < 0 ? ROOT : path.slice(0, cut)).gone.add(path.slice(cut + 1));
    }
    for (const r of fresh) touch(r.group).added.push(r);
    let groups: Map<string, readonly SiteRef[]> | undefined;
    let count = this.count;
    let moved = false;
    for (const [group, { gone, added }] of touched) {
      const before = this.groups.get(group) ?? [];
      // The common case after a write: the changed site neither matched nor matches.
      if (added.length === 0 && ![...gone].some((slug) => search(before, slug) >= 0)) continue;
      const after = merged(before, gone, added.sort(bySlug));
      if (same(before, after)) continue;
      groups ??= new Map(this.groups);
      if (after.length === 0) groups.delete(group);
      else groups.set(group, after);
      count += after.length - before.length;
      moved ||= before.length === 0 || after.length === 0;
    }
    if (!groups) return new Matches(version, this.groups, count, this.layout);
    return new Matches(version, groups, count, moved ? undefined : this.layout);
  }

  /** Every match, in no particular order. */
  *refs(): IterableIterator<SiteRef> {
    for (const list of this.groups.values()) yield* list;
  }

  /** The match at `group`/`slug`, if any. */
  at(group: string, slug: string): SiteRef | undefined {
    const list = this.groups.get(group);
    if (!list) return undefined;
    const i = search(list, slug);
    return i >= 0 ? list[i] : undefined;
  }

  /**
   * Each node's child groups, sorted by name: a node for each group that holds a match and
   * for each of its ancestors (the root always).
   */
  children(): ReadonlyMap<string, readonly string[]> {
    if (this.layout) return this.layout;
    const named = new Map<string, Set<string>>([[ROOT, new Set()]]);
    const node = (path: string): Set<string> => {
      let names = named.get(path);
      if (names) return names;
      named.set(path, (names = new Set()));
      node(parentOf(path)!).add(path.slice(path.lastIndexOf('/') + 1));
      return names;
    };
    for (const group of this.groups.keys()) node(group);
    const layout = new Map<string, readonly string[]>();
    for (const [path, names] of named) layout.set(path, [...names].sort(compare));
    this.layout = layout;
    return layout;
  }
}

/**
 * The group trees of filtered listings (`q`, `tag`, `group`: `tree` holds every match, spec
 * §5) as compressed pieces, made from the matches' addresses and revisions (`siteMatches`)
 * rather than from their documents. The sites of each node are cut into chunks as the
 * unfiltered tree's are (about 64 sites, boundaries by the slugs' hashes), and a chunk's
 * compressed bytes are kept by what they are made of (its sites and their revisions, for
 * each audience), whichever listing made them: after a write, a filtered listing fetches,
 * serializes and compresses only the chunk that holds the changed site, if it matches at
 * all, and no document of any other match. Bounded by bytes, least recently used out.
 *
 * The matches of each filter are kept too, arranged (Matches), as of a version of the
 * instance's group tree (ListingTree), and brought up to date from the sites the tree says
 * changed since: after a write, the read model is asked about the changed sites alone, not
 * for every match (a search would read every site's row), and only the groups whose matches
 * changed are arranged and cut into chunks again. Bounded by their number, least recently
 * used out.
 *
 * Arranged as `buildTree` arranges documents (projections/site-list.ts), to the same bytes.
 */
export class FilteredTrees {
  private readonly chunks: LRUCache<string, Chunk>;
  private readonly matchesOf = new LRUCache<string, Matches>({ maxSize: MATCHES_KEPT, sizeCalculation: (m) => m.count + 1 });
  /** Each kept group list's chunks, while the list is kept. */
  private readonly runsOf = new WeakMap<readonly SiteRef[], Runs>();
  private probe = '';

  constructor(
    private readonly queries: Pick<Queries, 'getSites' | 'siteMatches'>,
    private readonly tree: ListingTree,
    private readonly siteBytes: SiteBytes,
    budget = CHUNKS_BUDGET,
  ) {
    this.chunks = new LRUCache<string, Chunk>({ maxSize: budget, sizeCalculation: (c) => (c.a?.deflated.length ?? 0) + (c.m?.deflated.length ?? 0) + 64 });
  }

  /**
   * Every live site `query` matches, as of the group tree's last sync or later (so after
   * every write that returned before the call). Kept per filter and brought up to date with
   * the sites changed since; asked whole when the tree's record of changes does not reach
   * back to the kept version (or nothing is kept).
   */
  async matches(query: SiteQuery): Promise<Matches> {
    await this.tree.sync();
    const key = JSON.stringify([query.q ?? null, query.tag ?? null, query.group ?? null, query.includeHidden]);
    const version = this.tree.synced() ?? '';
    const kept = this.matchesOf.get(key);
    const changed = kept ? this.tree.changedSince(kept.version) : undefined;
    let matches: Matches;
    if (kept && changed) {
      if (changed.size === 0) return kept;
      matches = kept.updated(version, changed, await this.queries.siteMatches(query, [...changed]));
    } else {
      matches = Matches.of(version, await this.queries.siteMatches(query));
    }
    const now = this.matchesOf.get(key);
    if (!now || now.version <= version) this.matchesOf.set(key, matches);
    return matches;
  }

  /**
   * The tree of these matches as `admin` (or anyone else) sees its sites. `probe` names what
   * the sites' bytes depend on besides the sites (their URLs' shape): when it changes, every
   * chunk is made again.
   */
  async segments(matches: Matches, admin: boolean, probe: string): Promise<Segment[]> {
    if (probe !== this.probe) {
      this.chunks.clear();
      this.probe = probe;
    }
    const audience = admin ? 'a' : 'm';
    const children = matches.children();
    // The pieces in order; a chunk not kept yet stands as its key until it is made.
    const plan: (Segment | string)[] = [];
    const made = new Map<string, Segment>();
    const missing = new Map<string, readonly SiteRef[]>();
    const chunk = (key: string, sites: readonly SiteRef[]): void => {
      const kept = made.get(key) ?? this.chunks.get(key)?.[audience];
      if (kept) made.set(key, kept);
      else missing.set(key, sites);
      plan.push(key);
    };
    const walk = (path: string): void => {
      const cut = path.lastIndexOf('/');
      const name = path.slice(cut + 1);
      // A match whose path is a node's is that node's `site`: an entry of its parent group's list.
      const site = path === ROOT ? undefined : matches.at(cut < 0 ? ROOT : path.slice(0, cut), name);
      plan.push(stored(Buffer.from(`{"name":${JSON.stringify(name)},"path":${JSON.stringify(path)},${site ? '"site":' : ''}`)));
      if (site) {
        chunk(`${site.path}@${site.revision}`, [site]);
        plan.push(COMMA);
      }
      plan.push(GROUPS_OPEN);
      const names = children.get(path) ?? [];
      names.forEach((child, i) => {
        if (i > 0) plan.push(COMMA);
        walk(childPath(path, child));
      });
      plan.push(SITES_OPEN);
      const { runs, keys } = this.runs(matches.groups.get(path), names);
      runs.forEach((run, i) => {
        if (i > 0) plan.push(COMMA);
        chunk(keys[i]!, run);
      });
      plan.push(NODE_CLOSE);
    };
    walk(ROOT);

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
        if (whole) this.chunks.set(key, { ...this.chunks.get(key), [audience]: segment });
      }
    }
    return plan.map((p) => (typeof p === 'string' ? made.get(p)! : p));
  }

  /** A group's listed matches in chunks, with each chunk's key: kept with the group's list while its child nodes stay. */
  private runs(list: readonly SiteRef[] | undefined, children: readonly string[]): Runs {
    const named = children.join('/');
    if (!list) return NO_RUNS;
    const kept = this.runsOf.get(list);
    if (kept && kept.children === named) return kept;
    const nodes = new Set(children);
    const runs = chunked(list.filter((s) => !nodes.has(s.slug)));
    const made: Runs = { children: named, runs, keys: runs.map((run) => run.map((s) => `${s.path}@${s.revision}`).join(' ')) };
    this.runsOf.set(list, made);
    return made;
  }
}

const GROUPS_OPEN = stored(Buffer.from('"groups":['));
const NO_RUNS: Runs = { children: '', runs: [], keys: [] };

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const bySlug = (a: SiteRef, b: SiteRef): number => compare(a.slug, b.slug);

/** Index of `slug` in a list sorted by slug, or of where it would go (as `~index`). */
function search(list: readonly SiteRef[], slug: string): number {
  let lo = 0;
  let hi = list.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const k = list[mid]!.slug;
    if (k === slug) return mid;
    if (k < slug) lo = mid + 1;
    else hi = mid - 1;
  }
  return ~lo;
}

/** `before` (sorted by slug) without the slugs in `gone`, with `added` (sorted, none of them left in `before`) merged in. */
function merged(before: readonly SiteRef[], gone: ReadonlySet<string>, added: readonly SiteRef[]): readonly SiteRef[] {
  const out: SiteRef[] = [];
  let j = 0;
  for (const s of before) {
    if (gone.has(s.slug)) continue;
    while (j < added.length && added[j]!.slug < s.slug) out.push(added[j++]!);
    out.push(s);
  }
  while (j < added.length) out.push(added[j++]!);
  return out;
}

const same = (a: readonly SiteRef[], b: readonly SiteRef[]): boolean => a.length === b.length && a.every((s, i) => s.path === b[i]!.path && s.revision === b[i]!.revision);

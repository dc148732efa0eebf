import type { StreamChange } from './batch.ts';
import type { SiteDoc, StreamRecord } from './documents.ts';

/**
 * The group tree of the unfiltered listing (`GET /api/sites`), kept as documents of its own
 * and updated from each projected change instead of being rebuilt from every site per
 * listing. Pure: both read-model adapters load the nodes a batch touches (`treeNodesOf`),
 * apply the batch's site changes (`applyTreeChanges`) and store what changed, stamped with
 * the batch's position (the listing's version).
 *
 * A node holds the live sites whose group is the node's path (sorted by slug) and the child
 * groups that hold live sites (sorted by name, each with its subtree's counts), so what a
 * listing shows of one node is in that node alone: a write rewrites the nodes from the
 * site's group up to the root, and a reader that keeps a rendered copy re-renders only the
 * nodes whose version moved. Every update is a function of the node's stored content and
 * the site's new state (an entry is set or removed by slug; counts are recomputed from the
 * entries and the children's stored counts), so applying the same change twice, or after a
 * crash, gives the same node.
 */

/** A live site listed in its group's node. */
export type TreeSite = {
  readonly slug: string;
  /** The stream revision of the site's document: a reader's cached bytes of the site are current while it holds. */
  readonly revision: number;
  readonly hidden: boolean;
};

/** A child group of a node, with the live sites of its subtree. */
export type TreeGroup = { readonly name: string; readonly live: number; readonly visible: number };

export type TreeNodeDoc = {
  /** The group's path; '' for the root. */
  readonly path: string;
  /** Live sites whose group is this node's path, by slug. */
  readonly sites: readonly TreeSite[];
  /** Child groups with at least one live site in their subtree, by name. */
  readonly groups: readonly TreeGroup[];
  /** Live sites in the subtree (this node's and its descendants'); `visible`: those not hidden. */
  readonly live: number;
  readonly visible: number;
};

/** A stored node with the version (position key of the batch that last wrote it). */
export type VersionedTreeNode = { readonly node: TreeNodeDoc; readonly version: string };

/** What a batch does to one site's entry: its new entry, or undefined when it is not live any more. */
export type TreeSiteChange = { readonly group: string; readonly slug: string; readonly entry: TreeSite | undefined };

export const ROOT = '';

/** The parent group of a group path ('' for a top-level group); undefined for the root. */
export function parentOf(path: string): string | undefined {
  if (path === ROOT) return undefined;
  const cut = path.lastIndexOf('/');
  return cut < 0 ? ROOT : path.slice(0, cut);
}

const nameOf = (path: string): string => path.slice(path.lastIndexOf('/') + 1);

/** The group path and its ancestors up to the root. */
function lineage(group: string): string[] {
  const out = [group];
  for (let p = parentOf(group); p !== undefined; p = parentOf(p)) out.push(p);
  return out;
}

/** The tree entry of a site document: only live sites are listed. */
export function treeEntry(doc: SiteDoc | null | undefined, revision: number): TreeSite | undefined {
  return doc && doc.status === 'live' ? { slug: doc.slug, revision, hidden: doc.meta.hidden } : undefined;
}

/** The site changes of a projection batch, in the tree's terms (changes of other kinds are left out). */
export function treeChangesOf(changes: readonly StreamChange[]): TreeSiteChange[] {
  const out: TreeSiteChange[] = [];
  for (const { before, after } of changes) {
    if (after.kind !== 'site') continue;
    const doc = (after.doc ?? before?.doc ?? null) as SiteDoc | null;
    if (!doc) continue; // a stream that never had a document (never published)
    const was = treeEntry(before?.doc as SiteDoc | null | undefined, before?.revision ?? -1);
    const now = treeEntry(after.doc as SiteDoc | null, after.revision);
    if (!was && !now) continue; // in the trash before and after
    out.push({ group: doc.group, slug: doc.slug, entry: now });
  }
  return out;
}

/**
 * The tree entries of every site stream a batch touched, from their records as the batch
 * leaves them, whether or not the batch moved them. For a store whose documents and tree
 * are written one after the other (MongoDB): after a crash between the two, the events come
 * again, the documents are already ahead (so the batch moves nothing), and setting each
 * touched site's entry to its stored state brings the tree back in line. A record without a
 * document (a purged site) names its site by its stream (`site-<path with dots>`; labels
 * hold no dots): its entry is removed.
 */
export function treeStateOf(records: Iterable<StreamRecord>): TreeSiteChange[] {
  const out: TreeSiteChange[] = [];
  for (const r of records) {
    if (r.kind !== 'site') continue;
    const doc = r.doc as SiteDoc | null;
    if (doc) {
      out.push({ group: doc.group, slug: doc.slug, entry: treeEntry(doc, r.revision) });
      continue;
    }
    const path = r.stream.replace(/^site-/, '').replaceAll('.', '/');
    const cut = path.lastIndexOf('/');
    out.push(cut < 0 ? { group: ROOT, slug: path, entry: undefined } : { group: path.slice(0, cut), slug: path.slice(cut + 1), entry: undefined });
  }
  return out;
}

/** Every node `changes` may touch: each site's group and its ancestors (the root included). */
export function treeNodesOf(changes: readonly TreeSiteChange[]): string[] {
  const wanted = new Set<string>();
  for (const c of changes) for (const p of lineage(c.group)) wanted.add(p);
  return [...wanted];
}

const empty = (path: string): TreeNodeDoc => ({ path, sites: [], groups: [], live: 0, visible: 0 });

/** Index of `name` in a list sorted by `key`, or of where it would go (as `~index - 1`). */
function search<T>(items: readonly T[], name: string, key: (t: T) => string): number {
  let lo = 0;
  let hi = items.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const k = key(items[mid]!);
    if (k === name) return mid;
    if (k < name) lo = mid + 1;
    else hi = mid - 1;
  }
  return ~lo;
}

/** `items` with the element named `name` replaced by `item` (removed when undefined), kept sorted by name. */
function setByName<T extends object>(items: readonly T[], name: string, item: T | undefined, key: (t: T) => string): readonly T[] {
  const at = search(items, name, key);
  if (at < 0 && item === undefined) return items;
  if (at >= 0 && item !== undefined && sameFields(items[at]!, item)) return items;
  const out = items.slice();
  if (at >= 0) {
    if (item === undefined) out.splice(at, 1);
    else out[at] = item;
  } else if (item !== undefined) out.splice(~at, 0, item);
  return out;
}

const slugOf = (s: TreeSite) => s.slug;

/**
 * `sites` with each slug of `entries` set to its entry (removed when undefined), kept sorted
 * by slug; `sites` itself when nothing changed. A few entries are set one by one; many (a
 * replay's batch puts thousands into one group) in one merge, not one copy of the list each.
 */
function setEntries(sites: readonly TreeSite[], entries: ReadonlyMap<string, TreeSite | undefined>): readonly TreeSite[] {
  if (entries.size <= 8) {
    let out = sites;
    for (const [slug, entry] of entries) out = setByName(out, slug, entry, slugOf);
    return out;
  }
  const added: TreeSite[] = [];
  for (const [slug, entry] of entries) if (entry && search(sites, slug, slugOf) < 0) added.push(entry);
  added.sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0));
  const out: TreeSite[] = [];
  let changed = added.length > 0;
  let a = 0;
  for (const site of sites) {
    while (a < added.length && added[a]!.slug < site.slug) out.push(added[a++]!);
    if (!entries.has(site.slug)) {
      out.push(site);
      continue;
    }
    const entry = entries.get(site.slug);
    if (!entry) {
      changed = true;
      continue;
    }
    if (sameFields(site, entry)) out.push(site);
    else {
      out.push(entry);
      changed = true;
    }
  }
  while (a < added.length) out.push(added[a++]!);
  return changed ? out : sites;
}
const groupName = (g: TreeGroup) => g.name;

/**
 * Applies site changes to the nodes (`loaded`: the stored nodes among `treeNodesOf(changes)`;
 * absent: none stored). Returns every node whose content changed: the new node, or null
 * when it no longer holds any live site (the root is never removed). Pure.
 */
export function applyTreeChanges(loaded: ReadonlyMap<string, TreeNodeDoc>, changes: readonly TreeSiteChange[]): Map<string, TreeNodeDoc | null> {
  const nodes = new Map<string, TreeNodeDoc>();
  const get = (path: string): TreeNodeDoc => nodes.get(path) ?? loaded.get(path) ?? empty(path);
  const dirty = new Set<string>();
  // Each group's entries, the last change of a slug winning, applied to its node at once.
  const byGroup = new Map<string, Map<string, TreeSite | undefined>>();
  for (const c of changes) {
    let entries = byGroup.get(c.group);
    if (!entries) byGroup.set(c.group, (entries = new Map()));
    entries.set(c.slug, c.entry);
  }
  for (const [group, entries] of byGroup) {
    const node = get(group);
    const sites = setEntries(node.sites, entries);
    if (sites !== node.sites) nodes.set(group, { ...node, sites });
    // Counts are taken again even when the entry was already set: a store that wrote this
    // node but not its ancestors before a crash gets them right when the change comes again.
    for (const p of lineage(group)) dirty.add(p);
  }
  // Deepest first, so that each node's children are final before its counts are taken.
  const order = [...dirty].sort((a, b) => depth(b) - depth(a));
  for (const path of order) {
    const node = get(path);
    let live = node.sites.length;
    let visible = 0;
    for (const s of node.sites) if (!s.hidden) visible++;
    for (const g of node.groups) {
      live += g.live;
      visible += g.visible;
    }
    const counted = node.live === live && node.visible === visible ? node : { ...node, live, visible };
    nodes.set(path, counted);
    const parent = parentOf(path);
    if (parent === undefined) continue;
    const above = get(parent);
    const entry = live > 0 ? { name: nameOf(path), live, visible } : undefined;
    nodes.set(parent, { ...above, groups: setByName(above.groups, nameOf(path), entry, groupName) });
  }
  const out = new Map<string, TreeNodeDoc | null>();
  for (const [path, node] of nodes) {
    const before = loaded.get(path);
    if (node.live === 0 && !before) continue; // a node never stored and still empty needs nothing
    if (node.live === 0 && path !== ROOT) {
      out.set(path, null);
      continue;
    }
    if (before && sameNode(before, node)) continue;
    out.set(path, node);
  }
  return out;
}

function sameFields(a: object, b: object): boolean {
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  for (const k of Object.keys(y)) if (x[k] !== y[k]) return false;
  return Object.keys(x).length === Object.keys(y).length;
}

const depth = (path: string): number => (path === ROOT ? 0 : path.split('/').length);

function sameNode(a: TreeNodeDoc, b: TreeNodeDoc): boolean {
  if (a.live !== b.live || a.visible !== b.visible || a.sites.length !== b.sites.length || a.groups.length !== b.groups.length) return false;
  for (let i = 0; i < a.sites.length; i++) {
    const x = a.sites[i]!;
    const y = b.sites[i]!;
    if (x.slug !== y.slug || x.revision !== y.revision || x.hidden !== y.hidden) return false;
  }
  for (let i = 0; i < a.groups.length; i++) {
    const x = a.groups[i]!;
    const y = b.groups[i]!;
    if (x.name !== y.name || x.live !== y.live || x.visible !== y.visible) return false;
  }
  return true;
}

/** The full path of a site listed in the node at `group`. */
export const sitePathIn = (group: string, slug: string): string => (group === ROOT ? slug : `${group}/${slug}`);

/** A child group's path. */
export const childPath = (group: string, name: string): string => (group === ROOT ? name : `${group}/${name}`);

/** Finds a site entry of a node by slug (binary search). */
export function siteNamed(node: TreeNodeDoc, slug: string): TreeSite | undefined {
  const at = search(node.sites, slug, slugOf);
  return at >= 0 ? node.sites[at] : undefined;
}

import type { SiteDoc } from '../../projections/documents.ts';
import type { Queries } from '../../projections/queries.ts';
import { childPath, parentOf, ROOT, siteNamed, sitePathIn, type TreeGroup, type TreeNodeDoc, type TreeSite, type VersionedTreeNode } from '../../projections/site-tree.ts';
import { compressed, stored, type Segment } from './gzip-segments.ts';

/**
 * One way of showing the tree: with hidden sites (admins who asked) or without, and with the
 * sites' bytes as one audience sees them (`updated_by` for admins only).
 */
export type TreeVariant = { readonly hidden: boolean; readonly admin: boolean };

/** The JSON bytes of a site as `admin` (or not) sees it. */
export type SiteBytes = (doc: SiteDoc, admin: boolean) => Buffer;

/** Changed sites' paths kept for changedSince, over all the syncs it covers. */
const CHANGES_KEPT = 20_000;

/** A chunk of a node's `sites` ends after an entry whose slug hashes to 0 modulo this (about this many sites a chunk)... */
const CHUNK_MASK = 63;
/** ...or after this many, whichever comes first. */
const CHUNK_MAX = 256;

export const COMMA = stored(Buffer.from(','));
export const SITES_OPEN = stored(Buffer.from('],"sites":['));
export const NODE_CLOSE = stored(Buffer.from(']}'));
const EMPTY_SITES_CLOSE = stored(Buffer.from('],"sites":[]}'));

/** A node as rendered for one variant: valid while the node and its parent (its landing site's entry) keep their versions. */
type Rendered = {
  readonly version: string;
  readonly parentVersion: string;
  /** `{"name":…,"path":…,"site":…,"groups":[` */
  readonly head: Segment;
  /** `],"sites":[…]}` */
  readonly tail: readonly Segment[];
  /** The node's child groups shown in this variant, in order. */
  readonly children: readonly string[];
  /** Whether its head shows the group's landing site. */
  readonly landing: boolean;
  /** Compressed chunks of the node's sites by signature, reused across versions. */
  readonly chunks: Map<string, Segment>;
};

/**
 * The group tree of the unfiltered listing as this service instance last read it, and its
 * rendering as compressed pieces (gzip-segments.ts). The read model keeps the tree's nodes
 * up to date from the events (projections/site-tree.ts); this copy asks only for the nodes
 * written since it last looked, and renders again only those, fetching the documents of the
 * sites in the chunks that changed. A write to one site re-renders its group's node (and
 * the ancestors whose counts moved): one chunk of about 64 sites is serialized and
 * compressed again, whatever the number of sites.
 */
export class ListingTree {
  private version: string | undefined;
  private readonly nodes = new Map<string, VersionedTreeNode>();
  private readonly renders = new Map<string, Map<string, Rendered>>();
  private syncing: Promise<void> = Promise.resolve();
  private probe = '';
  /** The sites each sync found changed, oldest first, bounded by CHANGES_KEPT paths. */
  private readonly changes: { readonly from: string; readonly to: string; readonly paths: readonly string[] }[] = [];
  private logged = 0;

  constructor(
    private readonly queries: Pick<Queries, 'siteTree' | 'getSites'>,
    private readonly siteBytes: SiteBytes,
  ) {}

  /** Reads the nodes written since the last sync (every node the first time). Calls are serialized. */
  sync(): Promise<void> {
    const next = this.syncing.then(async () => {
      const from = this.version;
      const changes = await this.queries.siteTree(from);
      const moved = new Set<string>();
      for (const n of changes.nodes) {
        if (from !== undefined) this.movedSites(n.node, moved);
        this.nodes.set(n.node.path, n);
      }
      const to = from === undefined || changes.version > from ? changes.version : from;
      if (from !== undefined && to !== from) this.log(from, to, moved);
      this.version = to;
    });
    this.syncing = next.catch(() => undefined);
    return next;
  }

  /** The version of the tree as last synced. */
  synced(): string | undefined {
    return this.version;
  }

  /**
   * The paths of the sites listed, changed or gone between `version` (a version this copy
   * was synced to) and the last sync, as far as the kept record of changes goes back;
   * undefined when it does not go back that far.
   */
  changedSince(version: string): ReadonlySet<string> | undefined {
    if (version === this.version) return new Set();
    const at = this.changes.findIndex((c) => c.from === version);
    if (at < 0) return undefined;
    const out = new Set<string>();
    for (const c of this.changes.slice(at)) for (const path of c.paths) out.add(path);
    return out;
  }

  private log(from: string, to: string, paths: ReadonlySet<string>): void {
    if (paths.size > CHANGES_KEPT) {
      // A catch-up that changed more than is kept: nothing before it can be told apart.
      this.changes.length = 0;
      this.logged = 0;
      return;
    }
    this.changes.push({ from, to, paths: [...paths] });
    this.logged += paths.size;
    while (this.logged > CHANGES_KEPT && this.changes.length > 1) this.logged -= this.changes.shift()!.paths.length;
  }

  /**
   * Adds to `out` the sites whose entries differ between the kept node at `node.path` and
   * `node` (added, removed, another revision or visibility), and every site beneath a child
   * group the node no longer names (a group that lost its last site is not reported itself),
   * whose nodes are let go.
   */
  private movedSites(node: TreeNodeDoc, out: Set<string>): void {
    const before = this.nodes.get(node.path)?.node;
    const old = new Map((before?.sites ?? []).map((s) => [s.slug, s]));
    for (const s of node.sites) {
      const was = old.get(s.slug);
      if (!was || was.revision !== s.revision || was.hidden !== s.hidden) out.add(sitePathIn(node.path, s.slug));
      old.delete(s.slug);
    }
    for (const slug of old.keys()) out.add(sitePathIn(node.path, slug));
    const named = new Set(node.groups.map((g) => g.name));
    const gone = (path: string): void => {
      const kept = this.nodes.get(path)?.node;
      if (!kept) return;
      this.nodes.delete(path);
      for (const renders of this.renders.values()) renders.delete(path);
      for (const s of kept.sites) out.add(sitePathIn(path, s.slug));
      for (const g of kept.groups) gone(childPath(path, g.name));
    };
    for (const g of before?.groups ?? []) if (!named.has(g.name)) gone(childPath(node.path, g.name));
  }

  /** The root node as last synced (counts of the whole listing). */
  root(): TreeNodeDoc | undefined {
    return this.nodes.get(ROOT)?.node;
  }

  /** Live sites of the whole listing as `variant` shows them. */
  count(variant: TreeVariant): number {
    const root = this.root();
    return root ? (variant.hidden ? root.live : root.visible) : 0;
  }

  /**
   * The tree's JSON (`tree` of `SitesResponse`) as compressed pieces, from the last sync.
   * `probe` names what the sites' bytes depend on besides the sites (their URLs' shape): when
   * it changes, everything is rendered again.
   */
  async segments(variant: TreeVariant, probe: string): Promise<Segment[]> {
    const out: Segment[] = [];
    await this.render(this.rendersOf(variant, probe), variant, ROOT, undefined, out);
    return out;
  }

  /**
   * The tree of a listing filtered by `group` alone (spec §5: the group's subtree and the site
   * whose path is the group's), from the same kept pieces as the whole tree: the group's node
   * as the whole tree shows it, inside bare nodes for its ancestors; and the number of sites
   * it shows. Undefined when the group shows no site of its own subtree (then its answer is at
   * most one site, arranged otherwise: FilteredTrees).
   */
  async groupSegments(group: string, variant: TreeVariant, probe: string): Promise<{ segments: Segment[]; count: number } | undefined> {
    const here = this.nodes.get(group);
    const shown = here ? (variant.hidden ? here.node.live : here.node.visible) : 0;
    if (group === ROOT || !here || shown === 0) return undefined;
    const ancestors: string[] = [];
    for (let p = parentOf(group); p !== undefined; p = parentOf(p)) ancestors.unshift(p);
    const renders = this.rendersOf(variant, probe);
    const out: Segment[] = ancestors.map((path) => stored(Buffer.from(`{"name":${JSON.stringify(nameOf(path))},"path":${JSON.stringify(path)},"groups":[`)));
    await this.render(renders, variant, group, this.nodes.get(ancestors[ancestors.length - 1]!), out);
    for (const _ of ancestors) out.push(EMPTY_SITES_CLOSE);
    return { segments: out, count: shown + (renders.get(group)!.landing ? 1 : 0) };
  }

  private rendersOf(variant: TreeVariant, probe: string): Map<string, Rendered> {
    if (probe !== this.probe) {
      this.renders.clear();
      this.probe = probe;
    }
    const key = `${variant.hidden ? 'h' : 'v'}${variant.admin ? 'a' : 'm'}`;
    let renders = this.renders.get(key);
    if (!renders) this.renders.set(key, (renders = new Map()));
    return renders;
  }

  private async render(renders: Map<string, Rendered>, variant: TreeVariant, path: string, parent: VersionedTreeNode | undefined, out: Segment[]): Promise<void> {
    const here = this.nodes.get(path) ?? { version: '', node: { path, sites: [], groups: [], live: 0, visible: 0 } };
    const parentVersion = parent?.version ?? '';
    let r = renders.get(path);
    if (!r || r.version !== here.version || r.parentVersion !== parentVersion) {
      r = await this.renderNode(variant, here, parent, r?.chunks);
      renders.set(path, r);
    }
    out.push(r.head);
    for (const [i, name] of r.children.entries()) {
      if (i > 0) out.push(COMMA);
      await this.render(renders, variant, childPath(path, name), here, out);
    }
    out.push(...r.tail);
  }

  private async renderNode(variant: TreeVariant, here: VersionedTreeNode, parent: VersionedTreeNode | undefined, previous: Map<string, Segment> | undefined): Promise<Rendered> {
    const { node } = here;
    const shown = (s: TreeSite) => variant.hidden || !s.hidden;
    const children = node.groups.filter((g: TreeGroup) => (variant.hidden ? g.live : g.visible) > 0).map((g) => g.name);
    const childNames = new Set(children);
    const name = nameOf(node.path);
    // The group's landing site (the site whose full path is the group's) is an entry of the parent's node.
    const landing = parent ? siteNamed(parent.node, name) : undefined;
    const listed = node.sites.filter((s) => shown(s) && !childNames.has(s.slug));
    const runs = chunked(listed);

    // Documents to fetch: the landing site and every site of a chunk not rendered before.
    const chunks = new Map<string, Segment>();
    const wanted: string[] = [];
    const shownLanding = landing && shown(landing) ? landing : undefined;
    if (shownLanding) wanted.push(node.path);
    const signatures = runs.map(signature);
    runs.forEach((run, i) => {
      const hit = previous?.get(signatures[i]!);
      if (hit) chunks.set(signatures[i]!, hit);
      else for (const s of run) wanted.push(sitePathIn(node.path, s.slug));
    });
    const docs = new Map<string, SiteDoc>();
    for (const doc of wanted.length > 0 ? await this.queries.getSites(wanted) : []) docs.set(doc.path, doc);

    const bytesOf = (path: string): Buffer | undefined => {
      const doc = docs.get(path);
      return doc && doc.status === 'live' ? this.siteBytes(doc, variant.admin) : undefined;
    };
    const landingBytes = shownLanding ? bytesOf(node.path) : undefined;
    const head = compressed(
      Buffer.concat([
        Buffer.from(`{"name":${JSON.stringify(name)},"path":${JSON.stringify(node.path)},`),
        ...(landingBytes ? [Buffer.from('"site":'), landingBytes, Buffer.from(',')] : []),
        Buffer.from('"groups":['),
      ]),
    );
    const tail: Segment[] = [SITES_OPEN];
    runs.forEach((run, i) => {
      const sig = signatures[i]!;
      let chunk = chunks.get(sig);
      if (!chunk) {
        const parts: Buffer[] = [];
        for (const s of run) {
          const bytes = bytesOf(sitePathIn(node.path, s.slug));
          // A site gone between the tree read and this one is left out; the next version brings the tree in line.
          if (!bytes) continue;
          if (parts.length > 0) parts.push(Buffer.from(','));
          parts.push(bytes);
        }
        chunk = compressed(Buffer.concat(parts));
        chunks.set(sig, chunk);
      }
      if (i > 0) tail.push(COMMA);
      tail.push(chunk);
    });
    tail.push(NODE_CLOSE);
    return { version: here.version, parentVersion: parent?.version ?? '', head, tail, children, landing: landingBytes !== undefined, chunks };
  }
}

const nameOf = (path: string): string => path.slice(path.lastIndexOf('/') + 1);

/** FNV-1a of a slug: where chunks end depends on the sites' own names, so an insertion moves one boundary at most. */
function slugHash(slug: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < slug.length; i++) h = Math.imul(h ^ slug.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** A node's sites (in order) cut into chunks: where one ends depends on its last site alone. */
export function chunked<S extends { readonly slug: string }>(sites: readonly S[]): S[][] {
  const runs: S[][] = [];
  let run: S[] = [];
  for (const s of sites) {
    run.push(s);
    if ((slugHash(s.slug) & CHUNK_MASK) === 0 || run.length >= CHUNK_MAX) {
      runs.push(run);
      run = [];
    }
  }
  if (run.length > 0) runs.push(run);
  return runs;
}

const signature = (run: readonly TreeSite[]): string => run.map((s) => `${s.slug}@${s.revision}`).join('/');

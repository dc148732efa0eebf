import type { SiteDoc } from './documents.ts';

/**
 * One node of the group tree of `GET /api/sites` (seed "Group tree node"): `S` is the
 * API's `Site` shape, produced by the caller's mapper so this module stays free of HTTP.
 */
export type TreeNode<S> = {
  readonly name: string;
  readonly path: string;
  /** The group's landing site: the site whose full path equals this node's path. */
  site?: S;
  /** Always present, empty when there is nothing (portals of this kind iterate them unconditionally). */
  groups: TreeNode<S>[];
  sites: S[];
};

type Building = { name: string; path: string; site?: SiteDoc; groups: Map<string, Building>; sites: SiteDoc[] };

/**
 * Arranges sites as the group tree. The root has empty name and path; a site lives in the
 * `sites` of the node of its group (flat sites in the root's), and each group in the
 * `groups` of its parent. Every site appears exactly once:
 * - a site whose full path is also a group of the tree (flat site `decks` beside group
 *   `decks`; site `docs/app` beside group `docs/app`) is that group node's `site`, and is
 *   not repeated in its parent's `sites`;
 * - otherwise it is listed in its parent's `sites` (no group node is made for it alone).
 * Group nodes exist only for groups that hold at least one site of the input. Children
 * are sorted by name (groups by label, sites by slug); every node carries both `groups`
 * and `sites`, empty or not (spec §5).
 */
export function buildTree<S>(docs: readonly SiteDoc[], toSite: (doc: SiteDoc) => S): TreeNode<S> {
  const root: Building = { name: '', path: '', groups: new Map(), sites: [] };
  const nodes = new Map<string, Building>([['', root]]);
  const nodeOf = (group: string): Building => {
    const existing = nodes.get(group);
    if (existing) return existing;
    const cut = group.lastIndexOf('/');
    const parent = nodeOf(cut < 0 ? '' : group.slice(0, cut));
    const node: Building = { name: group.slice(cut + 1), path: group, groups: new Map(), sites: [] };
    parent.groups.set(node.name, node);
    nodes.set(group, node);
    return node;
  };
  // Groups first, so that the landing-site rule does not depend on the order of `docs`.
  for (const doc of docs) nodeOf(doc.group);
  for (const doc of docs) {
    const own = nodes.get(doc.path);
    if (own) own.site = doc;
    else nodes.get(doc.group)!.sites.push(doc);
  }
  return finish(root, toSite);
}

function finish<S>(node: Building, toSite: (doc: SiteDoc) => S): TreeNode<S> {
  const groups = [...node.groups.values()].sort((a, b) => compare(a.name, b.name));
  const sites = [...node.sites].sort((a, b) => compare(a.slug, b.slug));
  return {
    name: node.name,
    path: node.path,
    ...(node.site ? { site: toSite(node.site) } : {}),
    groups: groups.map((g) => finish(g, toSite)),
    sites: sites.map(toSite),
  };
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

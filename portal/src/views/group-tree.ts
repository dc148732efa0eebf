/** The group tree sidebar and breadcrumbs, built from the `tree` of `GET /api/sites`. */
import { h } from '../dom.ts';
import type { Site, TreeNode } from '../types.ts';

/** Number of sites at and beneath a node. */
export function countSites(node: TreeNode): number {
  return (node.site ? 1 : 0) + (node.sites?.length ?? 0) + (node.groups ?? []).reduce((n, g) => n + countSites(g), 0);
}

/** Every distinct tag of the sites in the tree, sorted. */
export function collectTags(node: TreeNode, into = new Set<string>()): Set<string> {
  const add = (s: Site | undefined) => s?.tags?.forEach((t) => into.add(t));
  add(node.site);
  node.sites?.forEach(add);
  node.groups?.forEach((g) => collectTags(g, into));
  return into;
}

export function groupTree(tree: TreeNode, active: string, hrefFor: (group: string) => string): HTMLElement {
  const item = (node: TreeNode): HTMLElement =>
    h(
      'li',
      null,
      h(
        'a',
        { href: hrefFor(node.path), 'aria-current': node.path === active ? 'true' : null },
        h('span', { class: 'name' }, node.name),
        h('span', { class: 'count' }, String(countSites(node))),
      ),
      node.groups?.length ? h('ul', null, node.groups.map(item)) : null,
    );
  return h(
    'nav',
    { class: 'group-tree', 'aria-label': 'Groups' },
    h(
      'ul',
      null,
      h(
        'li',
        null,
        h(
          'a',
          { href: hrefFor(''), 'aria-current': active === '' ? 'true' : null },
          h('span', { class: 'name' }, 'All sites'),
          h('span', { class: 'count' }, String(countSites(tree))),
        ),
        tree.groups?.length ? h('ul', null, tree.groups.map(item)) : null,
      ),
    ),
  );
}

/** "All sites / docs / sub": each ancestor group is a link. */
export function breadcrumbs(group: string, hrefFor: (group: string) => string, last?: string): HTMLElement {
  const labels = group ? group.split('/') : [];
  const crumbs: HTMLElement[] = [h('li', null, h('a', { href: hrefFor('') }, 'All sites'))];
  labels.forEach((label, i) => {
    const path = labels.slice(0, i + 1).join('/');
    const isLast = i === labels.length - 1 && last === undefined;
    crumbs.push(h('li', null, isLast ? h('span', { 'aria-current': 'page' }, label) : h('a', { href: hrefFor(path) }, label)));
  });
  if (last !== undefined) crumbs.push(h('li', null, h('span', { 'aria-current': 'page' }, last)));
  return h('nav', { class: 'breadcrumbs', 'aria-label': 'Breadcrumb' }, h('ol', null, crumbs));
}

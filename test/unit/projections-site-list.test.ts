import { describe, expect, it } from 'vitest';
import type { SiteDoc } from '../../projections/documents.ts';
import { buildTree, type TreeNode } from '../../projections/site-list.ts';
import { eventLog, meta, published, revision } from '../contracts/readmodel-events.ts';
import { projectSite } from '../../projections/project.ts';

/** Live site documents for these paths, built by the real projection. */
function docs(...paths: string[]): SiteDoc[] {
  const log = eventLog();
  return paths.map((p, i) => projectSite(null, log.site(p, published(p, i + 1, revision(`r${i}`), meta(p.toUpperCase()))))!);
}

const toPath = (d: SiteDoc): string => d.path;

/** Every site of a tree, each time it appears. */
function flatten(node: TreeNode<string>): string[] {
  return [...(node.site ? [node.site] : []), ...(node.sites ?? []), ...(node.groups ?? []).flatMap(flatten)];
}

describe('buildTree', () => {
  it('has an empty root for no sites', () => {
    expect(buildTree([], toPath)).toEqual({ name: '', path: '', groups: [], sites: [] });
  });

  it('puts flat sites in the root and grouped sites under their groups, sorted by name', () => {
    const tree = buildTree(docs('zeta', 'alpha', 'team/b/x', 'docs/app', 'team/a/y', 'docs/api', 'team/a/b'), toPath);
    expect(tree).toEqual({
      name: '',
      path: '',
      groups: [
        { name: 'docs', path: 'docs', groups: [], sites: ['docs/api', 'docs/app'] },
        {
          name: 'team',
          path: 'team',
          groups: [
            { name: 'a', path: 'team/a', groups: [], sites: ['team/a/b', 'team/a/y'] },
            { name: 'b', path: 'team/b', groups: [], sites: ['team/b/x'] },
          ],
          sites: [],
        },
      ],
      sites: ['alpha', 'zeta'],
    });
  });

  it('makes a flat site sharing a group name the landing site of that group, listed once', () => {
    for (const order of [['decks', 'decks/pr-6', 'other'], ['decks/pr-6', 'other', 'decks']]) {
      const tree = buildTree(docs(...order), toPath);
      expect(tree).toEqual({
        name: '',
        path: '',
        groups: [{ name: 'decks', path: 'decks', site: 'decks', groups: [], sites: ['decks/pr-6'] }],
        sites: ['other'],
      });
      expect(flatten(tree).sort()).toEqual([...order].sort());
    }
  });

  it('makes a grouped site the landing site of the nested group of its path', () => {
    const tree = buildTree(docs('docs/app', 'docs/app/v1', 'docs/web'), toPath);
    expect(tree).toEqual({
      name: '',
      path: '',
      groups: [
        {
          name: 'docs',
          path: 'docs',
          groups: [{ name: 'app', path: 'docs/app', site: 'docs/app', groups: [], sites: ['docs/app/v1'] }],
          sites: ['docs/web'],
        },
      ],
      sites: [],
    });
  });

  it('keeps a group node without sites of its own when only a deeper group has sites', () => {
    const tree = buildTree(docs('a/b/c'), toPath);
    expect(tree).toEqual({
      name: '',
      path: '',
      groups: [{ name: 'a', path: 'a', groups: [{ name: 'b', path: 'a/b', groups: [], sites: ['a/b/c'] }], sites: [] }],
      sites: [],
    });
  });

  it('maps every site through the given mapper', () => {
    const tree = buildTree(docs('decks', 'decks/pr-6'), (d) => ({ id: d.siteId, title: d.meta.title }));
    expect(tree.groups?.[0]?.site).toEqual({ id: 1, title: 'DECKS' });
    expect(tree.groups?.[0]?.sites).toEqual([{ id: 2, title: 'DECKS/PR-6' }]);
  });
});

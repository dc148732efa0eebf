import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { anchorsOf, linksOf } from './markdown.ts';

/** An absolute URL (`https:`, `mailto:`…): left to the reader, not checked here. */
const ABSOLUTE = /^[a-z][a-z0-9+.-]*:/i;

/**
 * What is wrong with the links of one page (repository-relative `page`, its Markdown text):
 * a relative target that is not a file or folder of the repository, one that climbs out of
 * it, or an `#anchor` that no heading of the target page makes. Each problem is one line.
 */
export function brokenLinks(root: string, page: string, markdown: string, anchors = cachedAnchors(root)): string[] {
  const problems: string[] = [];
  let own: Set<string> | undefined;
  for (const link of linksOf(markdown)) {
    if (ABSOLUTE.test(link) || link.startsWith('//')) continue;
    const [pathPart = '', anchor] = link.split('#', 2) as [string, string | undefined];
    let target = page;
    if (pathPart !== '') {
      if (pathPart.startsWith('/')) {
        problems.push(`${page}: ${link}: a path from the root of a host; link to a repository file with a relative path`);
        continue;
      }
      target = normalize(join(dirname(page), decodeURIComponent(pathPart))).split('\\').join('/');
      if (target.startsWith('..') || relative(root, join(root, target)).startsWith('..')) {
        problems.push(`${page}: ${link}: leaves the repository`);
        continue;
      }
      if (!existsSync(join(root, target))) {
        problems.push(`${page}: ${link}: no such file (${target})`);
        continue;
      }
    }
    if (anchor === undefined || anchor === '') continue;
    if (!target.endsWith('.md') || statSync(join(root, target)).isDirectory()) continue;
    const headings = target === page ? (own ??= anchorsOf(markdown)) : anchors(target);
    if (!headings.has(decodeURIComponent(anchor))) problems.push(`${page}: ${link}: ${target} has no heading #${anchor}`);
  }
  return problems;
}

function cachedAnchors(root: string): (page: string) => Set<string> {
  const cache = new Map<string, Set<string>>();
  return (page) => {
    let anchors = cache.get(page);
    if (!anchors) cache.set(page, (anchors = anchorsOf(readFileSync(join(root, page), 'utf8'))));
    return anchors;
  };
}

/**
 * The README and docs/ are one set of pages: every relative link must reach a file of the
 * repository, every `#anchor` a heading of its page (as GitHub and /docs/ name them), the
 * README stays the short front door, and the events reference names every event of the log.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { brokenLinks } from '../../host/docs/check-links.ts';
import { anchorsOf, docPages } from '../../host/docs/markdown.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');
const read = (page: string) => readFileSync(join(ROOT, page), 'utf8');

describe('links in the README and docs/', () => {
  it('every relative link and anchor resolves', () => {
    const pages = docPages(ROOT);
    expect(pages).toContain('README.md');
    expect(pages).toContain('docs/tutorial.md');
    expect(pages.flatMap((page) => brokenLinks(ROOT, page, read(page)))).toEqual([]);
  });

  it('reports a missing file, a missing anchor, a missing heading on another page and a way out of the repository', () => {
    const page = ['[a](docs/nope.md)', '[b](#not-here)', '[c](docs/tutorial.md#no-such-step)', '[d](../outside.md)', '[e](/docs/)'].join('\n\n');
    const problems = brokenLinks(ROOT, 'README.md', `# Here\n\n${page}\n`);
    expect(problems).toEqual([
      expect.stringContaining('docs/nope.md: no such file'),
      expect.stringContaining('README.md has no heading #not-here'),
      expect.stringContaining('docs/tutorial.md has no heading #no-such-step'),
      expect.stringContaining('leaves the repository'),
      expect.stringContaining('a path from the root of a host'),
    ]);
    expect(brokenLinks(ROOT, 'README.md', '# Here\n\n[ok](#here) [ok](docs/tutorial.md#1-start-the-service) [web](https://example.org/x#y)\n')).toEqual([]);
  });

  it('names anchors as GitHub does: markup dropped, punctuation removed, duplicates numbered', () => {
    const anchors = anchorsOf('# Redirects: `_redirects` and `_headers`\n\n## Step 1. Go!\n\n## Step 1. Go!\n');
    expect([...anchors]).toEqual(['redirects-_redirects-and-_headers', 'step-1-go', 'step-1-go-1']);
  });
});

describe('the README is the front door', () => {
  const readme = read('README.md');

  it('opens with the two commands and stays under 250 lines', () => {
    expect(readme.split('\n').slice(2, 6).join('\n')).toBe(
      [
        '```sh',
        'npm install && npm start     # the publishing service on the embedded stack: http://localhost:8080/',
        'npm test                     # every test (unit, contracts, HTTP, end-to-end, browser, diary)',
        '```',
      ].join('\n'),
    );
    expect(readme.trimEnd().split('\n').length).toBeLessThanOrEqual(250);
  });
});

describe('the events reference', () => {
  /** Every event type of the log, from the aggregates' own definitions. */
  function eventTypes(): string[] {
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const e of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
        if (e.isDirectory()) walk(join(dir, e.name));
        else if (e.name === 'events.ts') files.push(join(dir, e.name));
      }
    };
    walk('domain');
    return [...new Set(files.flatMap((f) => [...read(f).matchAll(/readonly type: '([A-Z][A-Za-z]+)'/g)].map((m) => m[1]!)))].sort();
  }

  it('has a section for every event type, and none for an event that does not exist', () => {
    const types = eventTypes();
    expect(types).toContain('SitePublished');
    const headings = [...read('docs/reference/events.md').matchAll(/^### (\w+)$/gm)].map((m) => m[1]!).sort();
    expect(headings).toEqual(types);
  });
});

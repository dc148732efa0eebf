/**
 * The site the audit views are tested on: docs/handbook, three revisions by two keys, with
 * every kind of change the diff view tells apart — text edited line by line, an image
 * repainted, a binary file, a text file over the line-diff cap, files added and removed.
 */
import { pngOf, page, publishOk, type SeedSite } from './support.ts';

const lines = (n: number, f: (i: number) => string) => Array.from({ length: n }, (_, i) => f(i)).join('\n') + '\n';

export const INDEX_V1 = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Handbook</title>
  <link rel="stylesheet" href="css/site.css">
</head>
<body>
  <header><h1>Team Handbook</h1></header>
  <main>
    <p>Welcome to the handbook.</p>
    <p>Start with the onboarding checklist.</p>
    <ul>
      <li><a href="about.html">About us</a></li>
      <li><a href="notes.txt">Notes</a></li>
    </ul>
    <img src="img/hero.png" alt="">
  </main>
  <footer>Version 1</footer>
</body>
</html>
`;
export const INDEX_V2 = INDEX_V1.replace('<p>Welcome to the handbook.</p>', '<p>Welcome to the team handbook: read this first.</p>')
  .replace('      <li><a href="about.html">About us</a></li>\n', '      <li><a href="news.html">News</a></li>\n      <li><a href="faq.html">Questions</a></li>\n')
  .replace('Version 1', 'Version 2');
export const INDEX_V3 = INDEX_V2.replace('Version 2', 'Version 3');

export const CSS_V1 = lines(12, (i) => (i === 4 ? '  color: #234;' : i === 0 ? 'body {' : i === 11 ? '}' : `  --space-${i}: ${i * 4}px;`));
export const CSS_V2 = CSS_V1.replace('color: #234;', 'color: #1c2230;\n  background: #f6f7f9;');

/** A text file over the 200 KB line-diff cap on both sides. */
const LOG_V1 = lines(5200, (i) => `2026-11-${String((i % 28) + 1).padStart(2, '0')} request ${i} served in ${i % 97} ms`);
const LOG_V2 = LOG_V1 + lines(40, (i) => `2026-11-29 request ${5200 + i} served in 12 ms`);

const binary = (seed: number) => Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 31 + seed * 7) % 256));

export const HERO_V1 = pngOf(240, 140, [36, 87, 214]);
export const HERO_V2 = pngOf(240, 140, [228, 87, 46], [255, 240, 200]);

export function handbook(n: 1 | 2 | 3): SeedSite {
  const files: Record<string, string | Buffer> =
    n === 1
      ? { 'index.html': INDEX_V1, 'css/site.css': CSS_V1, 'img/hero.png': HERO_V1, 'about.html': page('About', 'Who we are'), 'notes.txt': 'First notes.\n', 'data/export.bin': binary(1), 'data/log.txt': LOG_V1 }
      : {
          'index.html': n === 2 ? INDEX_V2 : INDEX_V3,
          'css/site.css': CSS_V2,
          'img/hero.png': HERO_V2,
          'news.html': page('News', 'What is new'),
          'faq.html': page('Questions', 'Asked often'),
          'notes.txt': n === 2 ? 'First notes.\n' : 'First notes.\nSecond thoughts.\n',
          'data/export.bin': binary(2),
          'data/log.txt': LOG_V2,
        };
  return { group: 'docs', slug: 'handbook', title: 'Team Handbook', description: 'How we work', tags: ['docs'], files };
}

/** v1 and v2 by the `seed` key, v3 by `ci-docs`; a second site so the service has more than one. */
export async function seedHandbook(base: string, seedToken: string, ciToken: string): Promise<void> {
  await publishOk(base, seedToken, handbook(1));
  await publishOk(base, seedToken, handbook(2));
  await publishOk(base, ciToken, handbook(3));
  await publishOk(base, seedToken, { group: 'docs', slug: 'single', title: 'Single Page', files: { 'index.html': page('Single Page', 'Only one revision') } });
}

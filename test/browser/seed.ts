/** The data both browser suites start from, published through the real ingest API. */
import { PNG_1x1, page, publishOk, type SeedSite } from './support.ts';

export const GUIDE_V = (n: number) => page('Docs Guide', `Version ${n} of the guide`, '<link rel="stylesheet" href="css/style.css">');
export const CSS = 'body { font-family: sans-serif; color: #234; }\n';
const FAVICON_SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><circle cx="8" cy="8" r="7" fill="#e4572e"/></svg>';

/** Three revisions of docs/guide: v1 has old.txt, v3 has new.txt, so switching revisions shows different trees. */
export function guide(n: 1 | 2 | 3): SeedSite {
  const files: Record<string, string | Buffer> = { 'index.html': GUIDE_V(n), 'css/style.css': CSS, 'img/logo.png': PNG_1x1 };
  if (n === 1) files['old.txt'] = 'only in version 1\n';
  if (n === 3) files['new.txt'] = 'only in version 3\n';
  return { group: 'docs', slug: 'guide', title: 'Docs Guide', description: 'How to use the docs', date: '2026-03-01', tags: ['docs', 'manual'], files };
}

/** A preview image URL: the card shows it instead of a live iframe. */
export const PREVIEW = `data:image/svg+xml,${encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 160 100"><rect width="160" height="100" fill="#2457d6"/><text x="80" y="58" font-size="20" text-anchor="middle" fill="#fff">API</text></svg>')}`;

export const BULK = 52;
export const bulkDate = (i: number) => new Date(Date.UTC(2025, 0, 1 + i)).toISOString().slice(0, 10);

/** Sites listed to everyone (hidden excluded): guide, api, blog, demo, upload-me, old-news, broken-preview + BULK fillers. */
export const VISIBLE = 7 + BULK;

export async function seed(base: string, token: string): Promise<void> {
  for (const n of [1, 2, 3] as const) await publishOk(base, token, guide(n));
  const singles: SeedSite[] = [
    { group: 'docs', slug: 'api', title: 'API Reference', date: '2026-02-01', tags: ['docs', 'api'], preview: PREVIEW, files: { 'index.html': page('API Reference', 'Endpoints') } },
    {
      group: '',
      slug: 'blog',
      title: 'Team Blog',
      date: '2026-01-15',
      tags: ['news'],
      files: { 'index.html': page('Team Blog', 'News', '<link rel="icon" href="favicon.svg">'), 'favicon.svg': FAVICON_SVG },
    },
    { group: 'team/alpha', slug: 'demo', title: 'Alpha Demo', tags: ['demo'], files: { 'index.html': page('Alpha Demo', 'A demo') } },
    { group: '', slug: 'secret', title: 'Secret Plans', hidden: true, files: { 'index.html': page('Secret Plans', 'Hush') } },
    { group: '', slug: 'upload-me', title: 'Upload Target', files: { 'index.html': page('Upload Target', 'Before upload') } },
    { group: '', slug: 'old-news', title: 'Old News', files: { 'index.html': page('Old News', 'Yesterday') } },
    // a preview URL that does not load: the card falls back to the title's initials
    { group: '', slug: 'broken-preview', title: 'Broken Preview', preview: 'data:image/png;base64,AAAA', files: { 'index.html': page('Broken Preview', 'The preview image is broken') } },
    { group: '', slug: 'junk', title: 'Junk', files: { 'index.html': page('Junk', 'To be purged') } },
  ];
  for (const s of singles) await publishOk(base, token, s);
  const bulk = Array.from({ length: BULK }, (_, i): SeedSite => {
    const nn = String(i).padStart(2, '0');
    return { group: 'bulk', slug: `b-${nn}`, title: `Bulk site ${nn}`, date: bulkDate(i), tags: ['bulk'], files: { 'index.html': page(`Bulk site ${nn}`, 'filler') } };
  });
  for (let i = 0; i < bulk.length; i += 4) await Promise.all(bulk.slice(i, i + 4).map((s) => publishOk(base, token, s)));
  // junk starts in the trash (unpublished by CI); old-news is unpublished through the portal by a test.
  const res = await fetch(`${base}/ingest/sites/junk`, { method: 'DELETE', headers: { Authorization: `Bearer ${token}` } });
  if (res.status !== 204) throw new Error(`unpublish junk: ${res.status} ${await res.text()}`);
}

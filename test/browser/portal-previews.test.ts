/**
 * Previews and permalinks in the portal (spec §14, issue 26 item 4), in Chromium against the
 * real service: a site's previews on its page (name, link, who, updated, expires, changes
 * against live, compare with live, remove after a confirmation), the preview events in the
 * History, and each revision's permalink in Files and History. What a publisher wrote
 * (preview titles, descriptions, links, file paths) must stay text. Screenshots at 1280 and 390 px.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { Preview, Revision } from '../../portal/src/types.ts';
import { startService } from '../support/service.ts';
import { startAuthProxy, type AuthProxy } from './auth-proxy.ts';
import { chromiumAvailable, eventually, launch, newContext, page as html, publishOk, shootView, watchErrors, zipOf } from './support.ts';

type Service = Awaited<ReturnType<typeof startService>>;

/** Strings a hostile publisher puts in a preview's description and files: none may run. */
const XSS_TITLE = '<img src=x onerror="window.__pwned=1">Fix header';
const XSS_DESC = '"><script>window.__pwned=2</script>';
const XSS_REPO = 'javascript:window.__pwned=3';
const XSS_FILE = '<img src=x onerror=window.__pwned=4>.html';

async function putPreview(base: string, token: string, name: string, meta: Record<string, unknown>, files: Record<string, string>): Promise<Record<string, unknown>> {
  const form = new FormData();
  form.append('meta', new Blob([JSON.stringify(meta)], { type: 'application/json' }));
  form.append('bundle', new Blob([new Uint8Array(await zipOf(files))], { type: 'application/zip' }), 'site.zip');
  const res = await fetch(`${base}/ingest/sites/docs/guide/previews/${name}`, { method: 'PUT', headers: { Authorization: `Bearer ${token}` }, body: form });
  if (res.status !== 200) throw new Error(`preview ${name}: ${res.status} ${await res.text()}`);
  return res.json();
}

describe.skipIf(!chromiumAvailable())('portal: previews and permalinks', () => {
  let svc: Service;
  let browser: Browser;
  let ctx: BrowserContext;
  let page: Page;
  let errors: string[];
  let portal: AuthProxy;
  let revs: Revision[];
  const site = () => `${portal.url}/sites/docs/guide`;
  const json = async <T>(path: string): Promise<T> => (await ctx.request.get(`${portal.url}${path}`)).json() as Promise<T>;
  const pwned = () => page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned);

  beforeAll(async () => {
    [svc, browser] = await Promise.all([startService({ env: { SITES_VERSIONING_ENABLED: 'true' } }), launch()]);
    const seed = await svc.createKey(['--name', 'seed', '--admin']);
    const ci = await svc.createKey(['--name', 'pr-bot', '--grant', 'docs:preview']);
    portal = await startAuthProxy(svc.url, 'admin');
    for (const n of [1, 2, 3]) {
      await publishOk(svc.url, seed, { group: 'docs', slug: 'guide', title: 'Guide', files: { 'index.html': html('Guide', `live v${n}`), 'about.html': html('About', 'same'), ...(n === 3 ? { 'news.html': html('News', 'new') } : {}) } });
    }
    await putPreview(svc.url, ci, 'pr-42', { title: XSS_TITLE, description: XSS_DESC, repo: XSS_REPO }, {
      'index.html': html('Guide', 'proposed in pr-42'),
      'about.html': html('About', 'same'),
      'news.html': html('News', 'new'),
      [XSS_FILE]: 'x',
    });
    await putPreview(svc.url, ci, 'pr-7', { title: 'Typo in the intro', repo: 'https://github.com/example/guide/pull/7' }, { 'index.html': html('Guide', 'pr-7 first push'), 'about.html': html('About', 'same') });
    await putPreview(svc.url, ci, 'pr-7', {}, { 'index.html': html('Guide', 'pr-7 second push'), 'about.html': html('About', 'same'), 'news.html': html('News', 'new') });
    await putPreview(svc.url, ci, 'closed', { title: 'Closed pull request' }, { 'index.html': html('Guide', 'closed') });
    const del = await fetch(`${svc.url}/ingest/sites/docs/guide/previews/closed`, { method: 'DELETE', headers: { Authorization: `Bearer ${ci}` } });
    expect(del.status).toBe(204);
    ctx = await newContext(browser);
    await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: portal.url });
    page = await ctx.newPage();
    errors = watchErrors(page);
    revs = (await json<{ revisions: Revision[] }>('/api/sites/docs/guide/revisions')).revisions;
  });
  // each test answers for the errors of its own page visits
  beforeEach(() => {
    errors?.splice(0);
  });
  afterAll(async () => {
    await browser?.close();
    await portal?.close();
    await svc?.stop();
  });

  test('the site page lists its previews: name, what it is, link, who, updated, expires, changes against live; publisher text stays text', async () => {
    const { previews } = await json<{ previews: Preview[] }>('/api/sites/docs/guide/previews');
    expect(previews.map((p) => p.name).sort()).toEqual(['pr-42', 'pr-7']);
    await page.goto(site());
    const rows = page.locator('.previews-table tbody tr');
    await eventually(() => rows.count()).toBe(2);
    // the one published last first
    expect(await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-preview')))).toEqual(['pr-7', 'pr-42']);
    const pr42 = page.locator('tr[data-preview="pr-42"]');
    const url42 = previews.find((p) => p.name === 'pr-42')!.url;
    expect(url42).toMatch(/^http:\/\/pr-42--guide\.docs\.localhost:\d+\/$/);
    expect(await pr42.locator('a.preview-link').getAttribute('href')).toBe(url42);
    expect(await pr42.locator('a.preview-link').getAttribute('target')).toBe('_blank');
    expect(await pr42.locator('td[data-label=By]').textContent()).toBe('key “pr-bot”');
    expect(await pr42.locator('td[data-label=Updated] time').getAttribute('datetime')).toBe(previews.find((p) => p.name === 'pr-42')!.updated_at);
    expect(await pr42.locator('td[data-label=Expires] time').textContent()).toBe('in 14 days');
    expect(await pr42.locator('td[data-label="Against live"]').textContent()).toMatch(/^\+1 ~1 files/);
    // hostile meta: shown literally, nothing ran, the javascript: link is no link
    expect(await pr42.locator('.preview-title').textContent()).toBe(XSS_TITLE);
    expect(await pr42.locator('.preview-desc').textContent()).toBe(XSS_DESC);
    expect(await pr42.locator('.preview-repo').textContent()).toBe(XSS_REPO);
    expect(await pr42.locator('a.preview-repo').count()).toBe(0);
    expect(await page.locator('.previews img, .previews script, a[href^="javascript:"]').count()).toBe(0);
    const pr7 = page.locator('tr[data-preview="pr-7"]');
    expect(await pr7.locator('a.preview-repo').getAttribute('href')).toBe('https://github.com/example/guide/pull/7');
    expect(await pr7.locator('.preview-title').textContent()).toBe('Typo in the intro'); // kept from the first push
    expect(await pwned()).toBeUndefined();
    await shootView(browser, site(), 'site-previews', (p) => p.locator('.previews-table tbody tr').nth(1).waitFor());
    expect(errors).toEqual([]);
  });

  test('Files and History give each kept revision its permalink', async () => {
    const live = revs.find((r) => r.current)!;
    expect(live.number).toBe(3);
    expect(live.url).toMatch(/^http:\/\/v3--guide\.docs\.localhost:\d+\/$/);
    await page.goto(site());
    const link = page.locator('.rev-line .permalink a');
    await eventually(() => link.getAttribute('href')).toBe(live.url);
    expect(await link.textContent()).toBe(live.url!.replace(/^http:\/\//, '').replace(/\/$/, ''));
    const v1 = revs.find((r) => r.number === 1)!;
    await page.locator('#revision-select').selectOption(v1.id);
    await eventually(() => link.getAttribute('href')).toBe(v1.url);
    await shootView(browser, `${site()}?rev=${v1.id}`, 'files-permalink', (p) => p.locator('.rev-line .permalink a').waitFor());

    await page.goto(`${site()}?tab=history`);
    const published = page.locator('.changelog .entry[data-type=SitePublished]');
    await eventually(() => published.count()).toBe(3);
    expect(await published.locator('.permalink a').evaluateAll((els) => els.map((e) => e.getAttribute('href')))).toEqual([3, 2, 1].map((n) => revs.find((r) => r.number === n)!.url));
    expect(errors).toEqual([]);
  });

  test('History tells the preview events: published, updated (with the changes against live), removed by whom', async () => {
    await page.goto(`${site()}?tab=history`);
    const previewEntries = page.locator('.changelog .entry.preview');
    await eventually(() => previewEntries.count()).toBe(5);
    expect(await previewEntries.evaluateAll((els) => els.map((e) => `${e.getAttribute('data-type')} ${e.getAttribute('data-preview')}`))).toEqual([
      'PreviewRemoved closed',
      'PreviewPublished closed',
      'PreviewPublished pr-7',
      'PreviewPublished pr-7',
      'PreviewPublished pr-42',
    ]);
    expect(await previewEntries.locator('.entry-title').allTextContents()).toEqual([
      'closed Preview removed',
      'closed Preview published',
      'pr-7 Preview updated',
      'pr-7 Preview published',
      'pr-42 Preview published',
    ]);
    expect(await previewEntries.first().locator('.who').textContent()).toBe('by key “pr-bot” (#2)');
    expect(await previewEntries.nth(4).locator('.entry-meta').textContent()).toMatch(/^by key “pr-bot” \(#2\) · \+1 ~1 files.* against live$/);
    expect(await previewEntries.nth(2).locator('.entry-meta').textContent()).toMatch(/^by key “pr-bot” \(#2\) · ~1 file.* against live$/);
    // the latest publish of a preview still online opens what it changes; the older one says why not
    expect(await previewEntries.nth(2).locator('a.entry-link').getAttribute('href')).toBe('/sites/docs/guide?tab=compare&from=current&to=preview%3Apr-7');
    expect(await previewEntries.nth(3).locator('.entry-note').textContent()).toBe('Preview pr-7 has been published again since');
    expect(await previewEntries.nth(1).locator('.entry-note').textContent()).toBe('Preview closed is no longer online');
    await shootView(browser, `${site()}?tab=history`, 'history-previews', (p) => p.locator('.changelog .entry.preview').nth(4).waitFor());
    expect(errors).toEqual([]);
  });

  test('Compare with live shows what a preview changes; its paths stay text', async () => {
    await page.goto(site());
    await page.locator('tr[data-preview="pr-42"]').getByRole('link', { name: 'Compare pr-42 with live' }).click();
    await page.waitForURL(/tab=compare/);
    expect(await page.locator('#compare-to').inputValue()).toBe('preview:pr-42');
    await eventually(() => page.locator('.compare-title').textContent()).toBe('What changed from v3 to preview pr-42');
    const added = page.locator('.diff-section.added .diff-file');
    await eventually(() => added.evaluateAll((els) => els.map((e) => e.getAttribute('data-path')))).toEqual([XSS_FILE]);
    expect(await added.locator('a').getAttribute('href')).toMatch(/^http:\/\/pr-42--guide\.docs\.localhost:\d+\/%3Cimg/);
    expect(await page.locator('.diff-section.changed .diff-file').evaluateAll((els) => els.map((e) => e.getAttribute('data-path')))).toEqual(['index.html']);
    expect(await page.locator('.diff img').count()).toBe(0);
    expect(await pwned()).toBeUndefined();
    await shootView(browser, `${site()}?tab=compare&from=current&to=preview%3Apr-42`, 'compare-preview', (p) => p.locator('.diff-section.added').waitFor());
    expect(errors).toEqual([]);
  });

  test('an admin removes a preview after a confirmation; Cancel keeps it', async () => {
    await page.goto(site());
    const rows = page.locator('.previews-table tbody tr');
    await eventually(() => rows.count()).toBe(2);
    await page.getByRole('button', { name: 'Remove preview pr-7' }).click();
    const dialog = page.getByRole('dialog');
    expect(await dialog.locator('h2').textContent()).toBe('Remove the preview pr-7?');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect((await json<{ previews: Preview[] }>('/api/sites/docs/guide/previews')).previews).toHaveLength(2);
    await page.getByRole('button', { name: 'Remove preview pr-7' }).click();
    await dialog.getByRole('button', { name: 'Remove preview' }).click();
    await eventually(() => page.locator('.previews-table tbody tr').count()).toBe(1);
    expect((await json<{ previews: Preview[] }>('/api/sites/docs/guide/previews')).previews.map((p) => p.name)).toEqual(['pr-42']);
    await page.goto(`${site()}?tab=history`);
    const removed = page.locator('.changelog .entry[data-type=PreviewRemoved][data-preview="pr-7"]');
    await removed.waitFor();
    expect(await removed.locator('.who').textContent()).toBe('by admin');
    // and in the service's Activity, with the preview's name
    await page.goto(`${portal.url}/activity?type=PreviewRemoved`);
    const activity = page.locator('.activity-entry[data-type=PreviewRemoved]');
    await eventually(() => activity.count()).toBe(2);
    expect(await activity.first().innerText()).toMatch(/removed a preview of[\s\S]*pr-7/);
    expect(errors).toEqual([]);
  });

  test('a viewer sees the previews but no Remove', async () => {
    const viewer = await startAuthProxy(svc.url, 'vera');
    const vctx = await newContext(browser);
    try {
      const vpage = await vctx.newPage();
      await vpage.goto(`${viewer.url}/sites/docs/guide`);
      await vpage.locator('.previews-table tbody tr').first().waitFor();
      expect(await vpage.getByRole('link', { name: 'Compare pr-42 with live' }).count()).toBe(1);
      expect(await vpage.getByRole('button', { name: /^Remove preview/ }).count()).toBe(0);
    } finally {
      await vctx.close();
      await viewer.close();
    }
  });

  test('a site with many previews shows the five published last, and the rest on request', async () => {
    const ci = await svc.createKey(['--name', 'pr-bot-2', '--grant', 'docs:preview']);
    for (const n of [1, 2, 3, 4, 5]) await putPreview(svc.url, ci, `pr-10${n}`, { title: `Change ${n}` }, { 'index.html': html('Guide', `change ${n}`) });
    await page.goto(site());
    const visible = page.locator('.previews-table tbody tr:visible');
    await eventually(() => visible.count()).toBe(5);
    expect(await visible.evaluateAll((els) => els.map((e) => e.getAttribute('data-preview')))).toEqual(['pr-105', 'pr-104', 'pr-103', 'pr-102', 'pr-101']);
    await page.getByRole('button', { name: 'Show all 6 previews' }).click();
    await eventually(() => visible.count()).toBe(6);
    expect(await page.getByRole('button', { name: /^Show all/ }).count()).toBe(0);
    expect(errors).toEqual([]);
  });
});

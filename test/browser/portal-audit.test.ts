/**
 * The portal as an audit tool, in a real browser against the real service: the History as a
 * changelog (who, when, what changed, short labels), the diff of one change (files added,
 * changed and removed, a line diff, images side by side), Compare for any two revisions,
 * Storage as a picture (per site and for the service), for an admin and for a viewer.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { formatBytes, formatSignedBytes } from '../../portal/src/format.ts';
import type { Revision, RevisionDiff, ServiceStorage, SiteStorage } from '../../portal/src/types.ts';
import { startService } from '../support/service.ts';
import { CSS_V1, CSS_V2, HERO_V2, seedHandbook } from './audit-seed.ts';
import { startAuthProxy, type AuthProxy } from './auth-proxy.ts';
import { chromiumAvailable, eventually, launch, newContext, shootView, watchErrors } from './support.ts';

type Service = Awaited<ReturnType<typeof startService>>;

describe.skipIf(!chromiumAvailable())('portal: history, diff, compare and storage', () => {
  let svc: Service;
  let browser: Browser;
  let ctx: BrowserContext;
  let page: Page;
  let errors: string[];
  let admin: AuthProxy;
  let viewer: AuthProxy;
  let seedToken: string;
  /** Revision ids of docs/handbook, oldest first: v1, v2, v3. */
  let v: [string, string, string];
  const site = () => `${admin.url}/sites/docs/handbook`;
  const entries = () => page.locator('.changelog .entry');
  const entry = (rev: string, type = 'SitePublished') => page.locator(`.changelog .entry[data-type=${type}][data-rev="${rev}"]`);
  const json = async <T>(path: string): Promise<T> => (await ctx.request.get(`${admin.url}${path}`)).json() as Promise<T>;

  beforeAll(async () => {
    [svc, browser] = await Promise.all([startService(), launch()]);
    seedToken = await svc.createKey(['--name', 'seed', '--admin']);
    const ci = await svc.createKey(['--name', 'ci-docs', '--grant', 'docs:publish']);
    [admin, viewer] = await Promise.all([startAuthProxy(svc.url, 'admin'), startAuthProxy(svc.url, 'vera'), seedHandbook(svc.url, seedToken, ci)]);
    ctx = await newContext(browser);
    await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: admin.url });
    page = await ctx.newPage();
    errors = watchErrors(page);
    const { revisions } = await json<{ revisions: Revision[] }>('/api/sites/docs/handbook/revisions');
    v = revisions.map((r) => r.id).sort() as [string, string, string];
  });
  afterAll(async () => {
    await browser?.close();
    await Promise.all([admin?.close(), viewer?.close()]);
    await svc?.stop();
  });

  test('History reads as a changelog: newest first, by day, who and when, +added ~changed −removed and short labels', async () => {
    await page.goto(`${site()}?tab=history`);
    await eventually(() => entries().count()).toBe(3);
    expect(await entries().evaluateAll((els) => els.map((e) => e.getAttribute('data-rev')))).toEqual([v[2], v[1], v[0]]);
    expect(await entries().locator('.entry-title').allTextContents()).toEqual(['v3 Published', 'v2 Published', 'v1 Published, a new site']);
    expect(await entries().locator('.who').allTextContents()).toEqual(['by key “ci-docs” (#2)', 'by key “seed” (#1)', 'by key “seed” (#1)']);
    expect(await page.locator('.changelog .day h3').allTextContents()).toEqual([expect.stringMatching(/^Today \d{4}-\d\d-\d\d$/)]);
    expect(await entry(v[2]).locator('.badge').textContent()).toBe('Live now');

    // the counts come from the events and agree with the diff of the same two revisions
    const d12 = await json<RevisionDiff>(`/api/sites/docs/handbook/revisions/${v[0]}/diff/${v[1]}`);
    expect([d12.added.length, d12.changed.length, d12.removed.length]).toEqual([2, 5, 1]);
    const v2 = entry(v[1]);
    expect(await v2.locator('.count').allTextContents()).toEqual(['+2', '~5', '−1']);
    expect(await v2.locator('.count.del').getAttribute('title')).toBe('1 file removed');
    expect(await v2.locator('.bytes').textContent()).toBe(formatSignedBytes(d12.bytes_added - d12.bytes_removed));
    expect(await entry(v[2]).locator('.count').allTextContents()).toEqual(['~2']);
    // a new site counts every file as added
    expect(await entry(v[0]).locator('.count').allTextContents()).toEqual(['+7']);

    // when: relative, the exact time on hover
    const time = v2.locator('.entry-when time');
    expect(await time.textContent()).toMatch(/^just now$|^\d+ minutes? ago$/);
    expect(await time.getAttribute('title')).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    // the full id is still there, and copyable
    expect(await v2.locator('.rev-id code').textContent()).toBe(v[1]);
    await v2.getByRole('button', { name: `Copy id ${v[1]}` }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(v[1]);
    expect(page.url()).not.toContain('diff='); // copying is not opening

    // the keyboard reaches a change and opens it
    await v2.locator('a.entry-link').focus();
    await page.keyboard.press('Enter');
    await page.waitForURL((u) => u.searchParams.get('diff') === `${v[0]}..${v[1]}`);
  });

  test('a click on a change opens its diff: files added, changed and removed with sizes; text as a line diff; images side by side', async () => {
    await page.goto(`${site()}?tab=history`);
    await entry(v[1]).waitFor();
    // the page is not drawn anew for a change within it: the heading element survives
    await page.locator('h1').evaluate((el) => ((el as HTMLElement).dataset.kept = 'yes'));
    await entry(v[1]).locator('.entry-meta').click(); // anywhere on the entry, not only its title
    await page.waitForURL((u) => u.searchParams.get('diff') === `${v[0]}..${v[1]}`);
    expect(await page.locator('h1').getAttribute('data-kept')).toBe('yes');
    expect(await page.locator('.change-head h2').textContent()).toMatch(/^v2 Published/);
    expect(await page.locator('.change-head').textContent()).toContain('Compared with v1, the revision it replaced.');

    const summary = page.locator('.diff-summary');
    await eventually(() => summary.textContent()).toMatch(/^2 added · 5 changed · 1 removed · 1 unchanged · size [+−]/);
    const section = (name: string) => page.locator(`.diff-section.${name} .diff-file`);
    expect(await section('added').evaluateAll((els) => els.map((e) => e.getAttribute('data-path')))).toEqual(['faq.html', 'news.html']);
    expect(await section('removed').evaluateAll((els) => els.map((e) => e.getAttribute('data-path')))).toEqual(['about.html']);
    expect(await section('changed').evaluateAll((els) => els.map((e) => e.getAttribute('data-path')))).toEqual(['css/site.css', 'data/export.bin', 'data/log.txt', 'img/hero.png', 'index.html']);
    const d = await json<RevisionDiff>(`/api/sites/docs/handbook/revisions/${v[0]}/diff/${v[1]}`);
    expect(await section('removed').locator('.sizes').textContent()).toBe(formatBytes(d.removed[0].size));
    const css = d.changed.find((c) => c.path === 'css/site.css')!;
    expect(await page.locator('.diff-file[data-path="css/site.css"] summary .sizes').textContent()).toBe(
      `${formatBytes(css.size_before)} → ${formatBytes(css.size_after)} (${formatSignedBytes(css.size_after - css.size_before)})`,
    );

    // text: a unified line diff with old and new line numbers
    const cssRows = page.locator('.diff-file[data-path="css/site.css"] .line-diff tr');
    await eventually(() => cssRows.count()).toBeGreaterThan(3);
    expect(CSS_V1).toContain('color: #234;');
    const cssFile = page.locator('.diff-file[data-path="css/site.css"]');
    expect(await cssFile.locator('tr.del td.ln').allTextContents()).toEqual(['5', '']);
    expect(await cssFile.locator('tr.del td.code').allTextContents()).toEqual([expect.stringContaining('color: #234;')]);
    expect(await cssFile.locator('tr.add td.ln').allTextContents()).toEqual(['', '5', '', '6']);
    expect(CSS_V2).toContain('background: #f6f7f9;');
    expect(await cssFile.locator('tr.add td.code').allTextContents()).toEqual([expect.stringContaining('color: #1c2230;'), expect.stringContaining('background: #f6f7f9;')]);
    expect(await cssFile.locator('tr.hunk').textContent()).toMatch(/^@@ -\d+,\d+ \+\d+,\d+ @@$/);
    expect(await page.locator('.diff-file[data-path="css/site.css"] .line-stats').textContent()).toBe('+2 −1 lines');
    await eventually(() => page.locator('.diff-file[data-path="index.html"] tr.add').count()).toBe(4);
    expect(await page.locator('.diff-file[data-path="index.html"] tr.add').first().textContent()).toContain('Welcome to the team handbook: read this first.');

    // images: both versions side by side, really loaded
    const imgs = page.locator('.diff-file[data-path="img/hero.png"] .image-compare img');
    await eventually(() => imgs.evaluateAll((els) => els.map((i) => (i as HTMLImageElement).naturalWidth))).toEqual([240, 240]);
    expect(await page.locator('.diff-file[data-path="img/hero.png"] figcaption').allTextContents()).toEqual([
      `Before · v1 · ${formatBytes(d.changed.find((c) => c.path === 'img/hero.png')!.size_before)}`,
      `After · v2 · ${formatBytes(HERO_V2.length)}`,
    ]);

    // a text file over the cap and a binary file stay closed, and say why when opened
    const log = page.locator('.diff-file[data-path="data/log.txt"]');
    expect(await log.evaluate((el) => (el as HTMLDetailsElement).open)).toBe(false);
    await log.locator('summary').click();
    await eventually(() => log.locator('.diff-body').textContent()).toContain('Too large to compare line by line (the limit is 200 KB on each side).');
    const bin = page.locator('.diff-file[data-path="data/export.bin"]');
    await bin.locator('summary').click();
    await eventually(() => bin.locator('.diff-body').textContent()).toContain('Not a text file, so there is no line diff.');
    const [download] = await Promise.all([page.waitForEvent('download'), bin.getByRole('link', { name: 'Download v2' }).click()]);
    expect((await readFile((await download.path())!)).length).toBe(3000);

    // an added file opens in the Files tab, at the revision that has it
    await section('added').getByRole('link', { name: 'news.html' }).click();
    await page.waitForURL((u) => u.searchParams.get('rev') === v[1] && u.searchParams.get('file') === 'news.html');
    expect(await page.getByRole('tab', { name: 'Files' }).getAttribute('aria-selected')).toBe('true');
    await eventually(() => page.locator('pre.code').textContent()).toContain('What is new');
    // back returns to the diff, back again to the changelog
    await page.goBack();
    await eventually(() => page.locator('.diff-summary').count()).toBe(1);
    await page.locator('a.back', { hasText: 'All changes' }).click();
    await eventually(() => entries().count()).toBe(3);
    expect(await page.locator('h1').getAttribute('data-kept')).toBe('yes');
  });

  test('Compare any two revisions from the Files tab: swap them, keep the choice in the URL, the same labels as History', async () => {
    await page.goto(site());
    const select = page.getByLabel('Revision', { exact: true });
    await page.locator('.file-tree button.file').first().waitFor();
    const options = await select.locator('option').allTextContents();
    expect(options).toEqual([expect.stringMatching(/^v3 · .* · live · /), expect.stringMatching(/^v2 · /), expect.stringMatching(/^v1 · /)]);
    // the live revision offers the one before it; an older one offers the live one
    expect(await page.getByRole('link', { name: 'Compare with v2' }).getAttribute('href')).toContain(`from=${encodeURIComponent(v[1])}&to=${encodeURIComponent(v[2])}`);
    await select.selectOption(v[0]);
    await page.getByRole('link', { name: 'Compare with current' }).click();
    await page.waitForURL((u) => u.searchParams.get('tab') === 'compare');
    expect(await page.getByRole('tab', { name: 'Compare' }).getAttribute('aria-selected')).toBe('true');
    expect(await page.getByLabel('From').inputValue()).toBe(v[0]);
    expect(await page.getByLabel('To').inputValue()).toBe(v[2]);
    expect(await page.locator('h2.compare-title').textContent()).toBe('What changed from v1 to v3');
    await eventually(() => page.locator('.diff-summary').textContent()).toMatch(/^2 added · 6 changed · 1 removed · 0 unchanged/);

    await page.getByRole('button', { name: 'Swap' }).click();
    expect(await page.locator('h2.compare-title').textContent()).toBe('What changed from v3 to v1 (newer to older)');
    await eventually(() => page.locator('.diff-section.added .diff-file').evaluateAll((els) => els.map((e) => e.getAttribute('data-path')))).toEqual(['about.html']);
    expect(new URL(page.url()).searchParams.get('from')).toBe(v[2]);
    expect(new URL(page.url()).searchParams.get('to')).toBe(v[0]);

    await page.getByLabel('To').selectOption(v[2]);
    expect(await page.locator('h2.compare-title').textContent()).toBe('Choose two different revisions');

    // the URL is the comparison: loading it again shows the same two
    await page.goto(`${site()}?tab=compare&from=${v[1]}&to=${v[2]}`);
    await eventually(() => page.locator('.diff-summary').textContent()).toMatch(/^0 added · 2 changed · 0 removed · 6 unchanged/);
    expect(await page.locator('.diff-section.changed .diff-file').evaluateAll((els) => els.map((e) => e.getAttribute('data-path')))).toEqual(['index.html', 'notes.txt']);
    await eventually(() => page.locator('.diff-file[data-path="notes.txt"] tr.add td.code').textContent()).toContain('Second thoughts.');
  });

  test('a rollback in the Files tab shows in History as "Live again", by the signed-in admin, and an edit says what it changed', async () => {
    await page.goto(site());
    await page.locator('.file-tree button.file').first().waitFor();
    await page.getByLabel('Revision', { exact: true }).selectOption(v[0]);
    await page.getByRole('button', { name: 'Make this revision live' }).click();
    const dialog = page.locator('dialog[open]');
    expect(await dialog.getByRole('heading').textContent()).toBe('Make v1 live?');
    expect(await dialog.textContent()).toContain('The current revision v3 is archived');
    await dialog.getByRole('button', { name: 'Roll back' }).click();
    await eventually(() => page.locator('#toasts').textContent()).toContain('Revision v1 is live.');
    const patched = await fetch(`${svc.url}/api/sites/docs/handbook`, {
      method: 'PATCH',
      headers: { Authorization: `Bearer ${seedToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ description: 'How the team works', tags: ['docs', 'team'] }),
    });
    expect(patched.status).toBe(200);

    await page.getByRole('tab', { name: 'History' }).click();
    await eventually(() => entries().count()).toBe(5);
    const edit = entries().first();
    expect(await edit.getAttribute('data-type')).toBe('SitePatched');
    expect(await edit.locator('.entry-title').textContent()).toBe('Edited metadata: changed description; tags docs, team');
    const rolled = entry(v[0], 'SiteRolledBack');
    expect(await rolled.locator('.entry-title').textContent()).toBe('v1 Live again: rolled back from v3');
    expect(await rolled.locator('.who').textContent()).toBe('by admin');
    expect(await rolled.locator('.badge').textContent()).toBe('Live now');
    expect(await entry(v[2]).locator('.badge').count()).toBe(0);
    const back = await json<RevisionDiff>(`/api/sites/docs/handbook/revisions/${v[2]}/diff/${v[0]}`);
    expect(await rolled.locator('.count').allTextContents()).toEqual(
      [back.added.length && `+${back.added.length}`, back.changed.length && `~${back.changed.length}`, back.removed.length && `−${back.removed.length}`].filter(Boolean),
    );
    await rolled.locator('a.entry-link').click();
    await page.waitForURL((u) => u.searchParams.get('diff') === `${v[2]}..${v[0]}`);
    expect(await page.locator('.change-head h2').textContent()).toMatch(/^v1 Live again: rolled back from v3/);
    await eventually(() => page.locator('.diff-section.added .diff-file').evaluateAll((els) => els.map((e) => e.getAttribute('data-path')))).toEqual(['about.html']);
  });

  test('Storage: every kept revision against what the store holds, and publishes per day; /storage for the whole service', async () => {
    await page.goto(`${site()}?tab=storage`);
    const storage = await json<SiteStorage>('/api/sites/docs/handbook/revisions'); // the list carries the storage figures
    expect(storage.revisions).toHaveLength(3);
    expect(storage.stored_bytes).toBeLessThan(storage.logical_bytes); // most files are shared between revisions
    await page.locator('.revision-bars').waitFor();
    const stats = await page.locator('.stats .stat').allInnerTexts();
    expect(stats.map((s) => s.replace(/\s+/g, ' '))).toEqual([
      '3 revisions kept',
      `${formatBytes(storage.logical_bytes)} sizes added up`,
      `${formatBytes(storage.stored_bytes)} really stored`,
      expect.stringMatching(new RegExp(`^${formatBytes(storage.logical_bytes - storage.stored_bytes)} saved by storing each file once \\(\\d+%\\)$`)),
    ]);
    // the picture: one segment per revision on the "added up" bar, labelled; the stored bar shows what is saved
    expect(await page.locator('.logical-vs-stored .bar-row.logical svg text').allTextContents()).toEqual(['v3', 'v2', 'v1']);
    expect(await page.locator('.logical-vs-stored .bar-row.stored svg').getAttribute('aria-label')).toBe(
      `Really stored: ${formatBytes(storage.stored_bytes)}, saving ${formatBytes(storage.logical_bytes - storage.stored_bytes)}`,
    );
    const rows = page.locator('.revision-bars li');
    expect(await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-rev')))).toEqual([v[2], v[1], v[0]]);
    expect(await rows.nth(2).locator('.bar-label').textContent()).toBe('v1Live'); // rolled back to in the test before
    // publishes per day: today's column holds the three publishes (the rollback is not one)
    expect(await page.locator('.activity p').textContent()).toMatch(/^3 publishes in the last 30 days, on 1 day\.$/);
    expect(await page.locator('.activity svg g').last().locator('title').textContent()).toMatch(/^Today \(\d{4}-\d\d-\d\d\): 3 publishes$/);
    expect(await page.locator('.activity svg g').count()).toBe(30);

    const total = await json<ServiceStorage>('/api/storage');
    expect(total).toMatchObject({ sites: 2, revisions: 4 });
    await page.getByRole('link', { name: 'Storage', exact: true }).click();
    await page.waitForURL(`${admin.url}/storage`);
    await page.locator('.stats').waitFor();
    expect((await page.locator('.stats .stat').allInnerTexts()).map((s) => s.replace(/\s+/g, ' ')).slice(0, 4)).toEqual([
      '2 sites',
      '4 revisions kept',
      `${formatBytes(total.logical_bytes)} sizes added up`,
      `${formatBytes(total.stored_bytes)} really stored`,
    ]);
    expect(await page.title()).toBe('Storage · Sites');
  });

  test('a Viewer compares revisions and sees storage, without History or activity; revisions carry the numbers the service gives them', async () => {
    const vctx = await newContext(browser);
    try {
      const vp = await vctx.newPage();
      const vErrors = watchErrors(vp);
      await vp.goto(`${viewer.url}/sites/docs/handbook?tab=history`); // not theirs: the page opens on Files
      await vp.locator('.file-tree button.file').first().waitFor();
      expect(await vp.getByRole('tab').allTextContents()).toEqual(['Files', 'Compare', 'Storage']);
      expect(await vp.getByRole('tab', { name: 'Files' }).getAttribute('aria-selected')).toBe('true');
      await vp.getByRole('tab', { name: 'Compare' }).click();
      const from = await vp.getByLabel('From').inputValue();
      const fromLabel = (await vp.getByLabel('From').locator('option:checked').textContent())!.split(' · ')[0];
      // Revision.number (spec §14) names revisions for viewers too, without the admins' history
      expect(from).toBe(v[2]); // the newest archived one against the live one (v1 after the rollback)
      expect(fromLabel).toBe('v3');
      expect(await vp.locator('h2.compare-title').textContent()).toBe('What changed from v3 to v1 (newer to older)');
      await eventually(() => vp.locator('.diff-summary').textContent()).toMatch(/^1 added · 6 changed · 2 removed/);

      await vp.getByRole('tab', { name: 'Storage' }).click();
      await vp.locator('.revision-bars').waitFor();
      expect(await vp.locator('.stats .stat').first().innerText()).toMatch(/^3\s+revisions kept$/);
      expect(await vp.locator('.activity').count()).toBe(0);

      expect(await vp.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents()).toEqual(['Sites']);
      await vp.goto(`${viewer.url}/storage`);
      await eventually(() => vp.locator('main [role=alert]').textContent()).toContain('You are not allowed to do this');
      expect(vErrors.filter((e) => !/status of 403/.test(e))).toEqual([]);
    } finally {
      await vctx.close();
    }
  });

  test('every audit view at desktop and phone size, nothing scrolls sideways (test-results/screenshots)', async () => {
    const diffReady = (p: Page) =>
      p.locator('.diff-summary').waitFor().then(() => p.waitForFunction(() => !document.querySelector('.diff-body [role=status]') && [...document.querySelectorAll('.diff-body img')].every((i) => (i as HTMLImageElement).complete)));
    await Promise.all([
      shootView(browser, `${site()}?tab=history`, 'history', (p) => p.locator('.changelog .entry').first().waitFor()),
      shootView(browser, `${site()}?tab=history&diff=${v[0]}..${v[1]}`, 'diff', diffReady),
      shootView(browser, `${site()}?tab=compare&from=${v[1]}&to=${v[2]}`, 'compare', diffReady),
      shootView(browser, `${site()}?tab=storage`, 'storage', (p) => p.locator('.activity').waitFor()),
      shootView(browser, `${admin.url}/sites/docs/single?tab=compare`, 'compare-one-revision', (p) => p.locator('.tab-panel .state', { hasText: 'Only one revision' }).waitFor()),
      shootView(browser, `${admin.url}/storage`, 'storage-service', (p) => p.locator('.stats').waitFor()),
      shootView(browser, `${viewer.url}/sites/docs/handbook?tab=compare`, 'compare-viewer', diffReady),
      shootView(browser, `${viewer.url}/sites/docs/handbook?tab=storage`, 'storage-viewer', (p) => p.locator('.revision-bars').waitFor()),
    ]);
  });

  test('the pages logged no console errors', () => {
    expect(errors).toEqual([]);
  });
});

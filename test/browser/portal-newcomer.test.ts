/**
 * The portal's gaps a newcomer hit (issue 30), in a real browser against the real service,
 * from an empty instance on: the first-site commands (copied and run as pasted), revision
 * pickers that tell apart revisions published within a minute, rollback from the History,
 * who changed each site and when on the cards and in the table, a dropped folder published
 * through the deploy protocol (only what changed goes up), and when the trash purges a site.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startService } from '../support/service.ts';
import { startAuthProxy, type AuthProxy } from './auth-proxy.ts';
import { chromiumAvailable, eventually, getFromSite, launch, newContext, page as html, publishOk, shootView, watchErrors } from './support.ts';

type Service = Awaited<ReturnType<typeof startService>>;
const run = promisify(execFile);

describe.skipIf(!chromiumAvailable())('portal: the newcomer’s path', () => {
  let svc: Service;
  let browser: Browser;
  let ctx: BrowserContext;
  let page: Page;
  let errors: string[];
  let admin: AuthProxy;
  let viewer: AuthProxy;
  let key: string;
  let work: string;
  const served = async (path: string) => (await getFromSite(svc.url, path, svc.port)).body;
  const dialog = () => page.locator('dialog[open]');
  const toasts = () => page.locator('#toasts');

  beforeAll(async () => {
    [svc, browser] = await Promise.all([startService(), launch()]);
    key = await svc.createKey(['--name', 'seed', '--admin']);
    [admin, viewer] = await Promise.all([startAuthProxy(svc.url, 'admin'), startAuthProxy(svc.url, 'vera')]);
    ctx = await newContext(browser);
    await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: admin.url });
    page = await ctx.newPage();
    errors = watchErrors(page);
    work = await mkdtemp(join(tmpdir(), 'sites-newcomer-'));
  });
  afterAll(async () => {
    await browser?.close();
    await Promise.all([admin?.close(), viewer?.close()]);
    await svc?.stop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  /** Runs what was copied, in bash in a folder holding `dist/index.html`, with the key in SITES_KEY as the guide says. */
  async function runPasted(commands: string, index: string): Promise<string> {
    const dir = await mkdtemp(join(work, 'shell-'));
    await mkdir(join(dir, 'dist'));
    await writeFile(join(dir, 'dist', 'index.html'), index);
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', commands], { cwd: dir, env: { ...process.env, SITES_KEY: key, SITES_CACHE_DIR: join(dir, 'cache') } });
    return stdout;
  }

  test('an empty portal shows an admin the commands to publish a first site, with this service’s address, and they work pasted', async () => {
    await page.goto(admin.url);
    const guide = page.locator('.first-site');
    await guide.waitFor();
    const cli = (await guide.locator('#first-site-cli').textContent())!;
    const curl = (await guide.locator('#first-site-curl').textContent())!;
    expect(cli).toBe(`curl -fsSL ${admin.url}/cli/sites.mjs -o sites.mjs\nnode sites.mjs publish dist --site docs/app --title "My site"`);
    expect(curl).toContain(`-F bundle=@site.tgz ${admin.url}/ingest/sites`);
    expect(await guide.textContent()).toContain('app.docs.localhost');

    await guide.getByRole('button', { name: 'Copy the curl commands' }).click();
    const copiedCurl = await page.evaluate(() => navigator.clipboard.readText());
    expect(copiedCurl).toBe(curl);
    await shootView(browser, admin.url, 'list-empty', (p) => p.locator('.first-site').waitFor());
    // a viewer cannot publish: one sentence, no commands
    const vp = await ctx.newPage();
    await vp.goto(viewer.url);
    await vp.locator('.results .state', { hasText: 'No sites have been published yet' }).waitFor();
    expect(await vp.locator('.first-site').count()).toBe(0);
    await vp.close();

    await runPasted(copiedCurl, html('My site', 'published with curl'));
    expect(await served('docs/app')).toBe(html('My site', 'published with curl'));
    await guide.getByRole('button', { name: 'Copy the command-line client commands' }).click();
    const out = await runPasted(await page.evaluate(() => navigator.clipboard.readText()), html('My site', 'published with the client'));
    expect(out).toMatch(/^published 1 file \(1 new/);
    expect(await served('docs/app')).toBe(html('My site', 'published with the client'));
  });

  test('revision pickers lead with the number and show seconds, so three revisions of one minute read apart', async () => {
    await publishOk(svc.url, key, { group: 'docs', slug: 'app', files: { 'index.html': html('My site', 'version 3') } });
    await page.goto(`${admin.url}/sites/docs/app`);
    const select = page.getByLabel('Revision');
    await page.locator('.file-tree button.file').first().waitFor();
    const options = await select.locator('option').allTextContents();
    expect(options).toEqual([
      expect.stringMatching(/^v3 · \d{4}-\d\d-\d\d \d\d:\d\d:\d\d · live · /),
      expect.stringMatching(/^v2 · \d{4}-\d\d-\d\d \d\d:\d\d:\d\d · /),
      expect.stringMatching(/^v1 · \d{4}-\d\d-\d\d \d\d:\d\d:\d\d · /),
    ]);
    await shootView(browser, `${admin.url}/sites/docs/app`, 'files-revisions', (p) => p.locator('.file-tree button.file').first().waitFor());
    await page.getByRole('tab', { name: 'Compare' }).click();
    await eventually(() => page.getByLabel('From').locator('option').count()).toBe(3);
    const from = await page.getByLabel('From').locator('option').allTextContents();
    expect(from.map((o) => o.split(' · ')[0])).toEqual(['v3', 'v2', 'v1']);
    expect(new Set(from).size).toBe(3);
  });

  test('History offers to make each kept revision live again, after a confirmation', async () => {
    await page.goto(`${admin.url}/sites/docs/app?tab=history`);
    const entries = page.locator('.changelog .entry');
    await eventually(() => entries.count()).toBe(3);
    // the live revision offers nothing; the two archived ones do
    expect(await entries.first().locator('button.rollback').count()).toBe(0);
    expect(await page.locator('.changelog button.rollback').allTextContents()).toEqual(['Make v2 live', 'Make v1 live']);

    const v1 = page.getByRole('button', { name: 'Make v1 live again' });
    await v1.click();
    expect(await dialog().getByRole('heading').textContent()).toBe('Make v1 live?');
    await dialog().getByRole('button', { name: 'Cancel' }).click();
    await eventually(() => dialog().count()).toBe(0);
    expect(await served('docs/app')).toBe(html('My site', 'version 3'));

    await v1.click();
    await dialog().getByRole('button', { name: 'Roll back' }).click();
    await eventually(() => toasts().textContent()).toContain('Revision v1 is live.');
    expect(await served('docs/app')).toBe(html('My site', 'published with curl'));
    // the page shows the new state: v1 is live, v3 can come back
    await eventually(() => entries.first().locator('.entry-title').textContent()).toBe('v1 Live again: rolled back from v3');
    expect(await page.locator('.changelog button.rollback').allTextContents()).toEqual(['Make v3 live', 'Make v2 live']);
    expect(new URL(page.url()).searchParams.get('tab')).toBe('history');
    await shootView(browser, `${admin.url}/sites/docs/app?tab=history`, 'history-rollback', (p) => p.locator('.changelog button.rollback').first().waitFor());
  });

  test('cards and the table say when each site last changed and who changed it; the table’s Date is never empty', async () => {
    await publishOk(svc.url, key, { group: '', slug: 'blog', title: 'Team Blog', files: { 'index.html': html('Team Blog', 'news') } });
    await publishOk(svc.url, key, { group: 'docs', slug: 'guide', title: 'Docs Guide', date: '2026-03-01', files: { 'index.html': html('Docs Guide', 'v1') } });
    await page.goto(admin.url);
    const card = (path: string) => page.locator(`.card[data-path="${path}"] .updated`);
    await eventually(() => card('docs/app').textContent()).toMatch(/^Updated (just now|1 minute ago) by admin$/);
    expect(await card('blog').textContent()).toMatch(/^Updated (just now|1 minute ago) by key “seed”$/);
    expect(await card('blog').locator('time').getAttribute('datetime')).toMatch(/^\d{4}-\d\d-\d\dT/);
    await shootView(browser, admin.url, 'list-updated', (p) => p.locator('.card .updated').first().waitFor());

    await page.goto(`${admin.url}/?view=table`);
    const row = (path: string) => page.locator(`.sites-table tr[data-path="${path}"]`);
    await row('blog').waitFor();
    expect(await row('docs/guide').locator('td[data-label=Date]').textContent()).toBe('2026-03-01');
    // no date given: the day it last changed, marked as such
    const fallback = row('blog').locator('td[data-label=Date] .fallback-date');
    expect(await fallback.textContent()).toMatch(/^\d{4}-\d\d-\d\d \(no date given: last changed\)$/);
    expect(await fallback.getAttribute('title')).toBe('No date given: the day the site last changed');
    expect(await row('blog').locator('td[data-label=Updated]').textContent()).toMatch(/by key “seed”$/);
    expect(await row('docs/app').locator('td[data-label=Updated]').textContent()).toMatch(/by admin$/);
    await shootView(browser, `${admin.url}/?view=table`, 'list-table-updated', (p) => p.locator('.sites-table tbody tr').first().waitFor());
  });

  test('a dropped folder is published through the deploy protocol, and a new version sends only what changed', async () => {
    const dir = join(work, 'site');
    await mkdir(join(dir, 'css'), { recursive: true });
    await mkdir(join(dir, 'img'), { recursive: true });
    await writeFile(join(dir, 'index.html'), html('My site', 'from a folder'));
    await writeFile(join(dir, 'css', 'site.css'), 'body { color: #234; }\n');
    await writeFile(join(dir, 'img', 'big.bin'), Buffer.alloc(200_000, 7));
    const puts: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'PUT' && /\/api\/deploys\/[^/]+\/files\/[0-9a-f]{64}$/.test(new URL(r.url()).pathname)) puts.push(r.url());
    });

    /** Drops the folder on the dialog's drop zone the way the OS does (Chromium's drag and drop, through DevTools). */
    async function dropFolder(): Promise<void> {
      const box = (await page.locator('.dropzone').boundingBox())!;
      const at = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
      const cdp = await ctx.newCDPSession(page);
      const data = { items: [], files: [dir], dragOperationsMask: 1 };
      for (const type of ['dragEnter', 'dragOver', 'drop'] as const) await cdp.send('Input.dispatchDragEvent', { type, ...at, data });
      await cdp.detach();
    }

    await page.goto(`${admin.url}/sites/docs/app`);
    await page.getByRole('button', { name: 'Upload new version' }).click();
    await dropFolder();
    await eventually(() => dialog().locator('.chosen').textContent()).toBe('Folder site/ (3 files, 200 KB)');
    await dialog().getByRole('button', { name: 'Replace live content' }).click();
    await eventually(() => dialog().count()).toBe(0);
    expect(await toasts().textContent()).toContain('Published docs/app. 3 files of 3 sent');
    expect(puts.length).toBe(3);
    expect(await served('docs/app')).toBe(html('My site', 'from a folder'));
    expect(await (await getFromSite(svc.url, 'docs/app', svc.port, '/css/site.css')).body).toBe('body { color: #234; }\n');

    // one file changed: only it goes up
    await writeFile(join(dir, 'index.html'), html('My site', 'from a folder, again'));
    puts.length = 0;
    await page.getByRole('button', { name: 'Upload new version' }).click();
    await dropFolder();
    await eventually(() => dialog().locator('.chosen').textContent()).toMatch(/^Folder site\//);
    await dialog().getByRole('button', { name: 'Replace live content' }).click();
    await eventually(() => dialog().count()).toBe(0);
    await eventually(() => toasts().textContent()).toContain('1 file of 3 sent');
    expect(puts.length).toBe(1);
    expect(await served('docs/app')).toBe(html('My site', 'from a folder, again'));

    // a folder without index.html at its top is refused before anything is sent
    const bare = join(work, 'bare');
    await mkdir(join(bare, 'inner'), { recursive: true });
    await writeFile(join(bare, 'inner', 'index.html'), 'nested');
    puts.length = 0;
    await page.getByRole('button', { name: 'Upload new version' }).click();
    await page.locator('#upload-folder').setInputFiles(bare);
    await eventually(() => dialog().locator('.chosen').textContent()).toMatch(/^Folder bare\/ \(1 file/);
    await dialog().getByRole('button', { name: 'Replace live content' }).click();
    await eventually(() => dialog().locator('p.error').textContent()).toContain('The folder has no index.html at its top');
    await dialog().getByRole('button', { name: 'Cancel' }).click();
    expect(puts.length).toBe(0);

    // "Choose a folder" publishes a new site the same way
    await page.goto(admin.url);
    await page.getByRole('button', { name: 'Publish a site' }).click();
    await dialog().getByLabel(/^Group/).fill('docs');
    await dialog().getByLabel('Slug').fill('chosen');
    await dialog().getByLabel('Title').fill('Chosen Folder');
    await page.locator('#upload-folder').setInputFiles(dir);
    await eventually(() => dialog().locator('.chosen').textContent()).toMatch(/^Folder site\/ \(3 files/);
    await dialog().getByRole('button', { name: 'Publish' }).click();
    await page.waitForURL(`${admin.url}/sites/docs/chosen`);
    expect(await served('docs/chosen')).toBe(html('My site', 'from a folder, again'));

    await shootView(browser, `${admin.url}/sites/docs/app`, 'upload-folder', async (p) => {
      await p.getByRole('button', { name: 'Upload new version' }).click();
      await p.locator('#upload-folder').setInputFiles(dir);
      await p.locator('dialog[open] .chosen', { hasText: 'Folder site/' }).waitFor();
    }, { fullPage: false });
  });

  test('the trash says when each site will be purged', async () => {
    const res = await fetch(`${svc.url}/ingest/sites/blog`, { method: 'DELETE', headers: { Authorization: `Bearer ${key}` } });
    expect(res.status).toBe(204);
    await page.goto(`${admin.url}/trash`);
    const row = page.locator('.trash-table tr[data-path="blog"]');
    await row.waitFor();
    // SITES_DELETED_SITE_TTL is 720h by default
    expect(await row.locator('td[data-label=Purged]').textContent()).toBe('in 30 days');
    expect(await row.locator('td[data-label=Purged] time').getAttribute('title')).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    expect(await row.locator('td[data-label=Unpublished]').textContent()).toMatch(/by key “seed”$/);
    expect(await page.locator('.trash-intro').textContent()).toBe('Unpublished sites wait here, offline, for 30 days; then they are purged automatically. Restore one to put it back online as it was.');
    await shootView(browser, `${admin.url}/trash`, 'trash-purge', (p) => p.locator('.trash-table tbody tr').first().waitFor());
  });

  test('logged no console errors', () => {
    expect(errors).toEqual([]);
  });
});

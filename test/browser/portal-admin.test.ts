/**
 * Admin actions in the portal, in a real browser against the real service: roll back
 * and see the served site change, upload a new version by drag and drop, edit metadata,
 * the History tab, API keys (create in the UI, use with ingest, revoke, refused), and the
 * Trash (unpublish, restore, purge with the typed path).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startService } from '../support/service.ts';
import { seed } from './seed.ts';
import { startAuthProxy, type AuthProxy } from './auth-proxy.ts';
import { chromiumAvailable, eventually, getFromSite, launch, newContext, page as html, publish, shootView, watchErrors, zipOf } from './support.ts';

type Service = Awaited<ReturnType<typeof startService>>;

describe.skipIf(!chromiumAvailable())('portal: admin actions', () => {
  let svc: Service;
  let browser: Browser;
  let ctx: BrowserContext;
  let page: Page;
  let errors: string[];
  const served = async (path: string) => getFromSite(svc.url, path, svc.port);
  const dialog = () => page.locator('dialog[open]');

  let portal: AuthProxy; // the portal as the admin sees it, through a forward-auth proxy

  beforeAll(async () => {
    [svc, browser] = await Promise.all([startService(), launch()]);
    [portal] = await Promise.all([startAuthProxy(svc.url, 'admin'), seed(svc.url, await svc.createKey(['--name', 'seed', '--admin']))]);
    ctx = await newContext(browser);
    await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: portal.url });
    page = await ctx.newPage();
    errors = watchErrors(page);
  });
  afterAll(async () => {
    await browser?.close();
    await portal?.close();
    await svc?.stop();
  });

  test('rolls back to a chosen revision after confirming, and the served site changes', async () => {
    expect((await served('docs/guide')).body).toContain('Version 3 of the guide');
    await page.goto(`${portal.url}/sites/docs/guide`);
    const select = page.getByLabel('Revision');
    await page.locator('.file-tree button.file').first().waitFor();
    const v2 = (await select.locator('option').nth(1).getAttribute('value'))!;
    await select.selectOption(v2);
    const rollback = page.getByRole('button', { name: 'Make this revision live' });
    await rollback.waitFor();

    // cancelling changes nothing
    await rollback.click();
    await dialog().getByRole('button', { name: 'Cancel' }).click();
    await eventually(() => dialog().count()).toBe(0);
    expect((await served('docs/guide')).body).toContain('Version 3 of the guide');

    await rollback.click();
    expect(await dialog().textContent()).toContain(v2);
    await dialog().getByRole('button', { name: 'Roll back' }).click();
    await eventually(() => dialog().count()).toBe(0);
    await eventually(async () => (await served('docs/guide')).body).toContain('Version 2 of the guide');
    // the page reloads on the live revision, which is now v2 (ids are kept by a rollback)
    await eventually(() => select.inputValue()).toBe(v2);
    expect(await select.locator('option').first().textContent()).toMatch(/^v2 · \d{4}-\d\d-\d\d \d\d:\d\d:\d\d · live · /);
    expect(await rollback.isVisible()).toBe(false);
  });

  test('the History tab reads as a changelog of who did what, and arrow keys move between tabs', async () => {
    await page.goto(`${portal.url}/sites/docs/guide`);
    const files = page.getByRole('tab', { name: 'Files' });
    await files.focus();
    await page.keyboard.press('ArrowRight');
    expect(await page.getByRole('tab', { name: 'Compare' }).getAttribute('aria-selected')).toBe('true');
    await page.keyboard.press('ArrowRight');
    expect(await page.getByRole('tab', { name: 'History' }).getAttribute('aria-selected')).toBe('true');
    const entries = page.locator('.changelog .entry');
    await eventually(() => entries.count()).toBe(4);
    // newest first: the rollback of the first test, by the signed-in admin, is live now
    const rolled = entries.first();
    expect(await rolled.getAttribute('data-type')).toBe('SiteRolledBack');
    expect(await rolled.locator('.entry-title').textContent()).toBe('v2 Live again: rolled back from v3');
    expect(await rolled.locator('.who').textContent()).toBe('by admin');
    expect(await rolled.locator('.badge').textContent()).toBe('Live now');
    const published = page.locator('.changelog .entry[data-type=SitePublished]');
    expect(await published.count()).toBe(3);
    expect(await published.first().locator('.who').textContent()).toBe('by key “seed” (#1)');
    expect(await published.last().locator('.entry-title').textContent()).toBe('v1 Published, a new site');
    expect(await page.locator('.changelog .day h3').allTextContents()).toEqual([expect.stringMatching(/^Today \d{4}-\d\d-\d\d$/)]);
    await page.keyboard.press('ArrowLeft');
    expect(await page.getByRole('tab', { name: 'Compare' }).getAttribute('aria-selected')).toBe('true');
    expect(new URL(page.url()).searchParams.get('tab')).toBe('compare');
  });

  test('uploads a new version by drag and drop with a progress bar', async () => {
    await page.goto(`${portal.url}/sites/upload-me`);
    await page.getByRole('button', { name: 'Upload new version' }).click();
    const content = html('Upload Target', 'Uploaded via the portal');
    // a real drop event carrying a File, as the OS would deliver it
    await page.evaluate((text) => {
      const dt = new DataTransfer();
      dt.items.add(new File([text], 'index.html', { type: 'text/html' }));
      document.querySelector('.dropzone')!.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
      const seen: number[] = ((window as any).__progress = []);
      new MutationObserver(() => seen.push(Number((document.querySelector('#upload-progress') as HTMLProgressElement).value))).observe(
        document.querySelector('#upload-progress')!,
        { attributes: true },
      );
    }, content);
    expect(await dialog().locator('.chosen').textContent()).toContain('index.html');
    await dialog().getByRole('button', { name: 'Replace live content' }).click();
    await eventually(() => dialog().count()).toBe(0);
    expect(await page.evaluate(() => (window as any).__progress)).toContain(100);
    expect((await served('upload-me')).body).toBe(content);
  });

  test('publishes a new site from the list page, choosing the file with the file picker', async () => {
    await page.goto(portal.url);
    await page.getByRole('button', { name: 'Publish a site' }).click();
    await dialog().getByLabel(/^Group/).fill('docs');
    await dialog().getByLabel('Slug').fill('fresh');
    await dialog().getByLabel('Title').fill('Fresh Site');
    const zip = await zipOf({ 'site/index.html': html('Fresh Site', 'brand new'), 'site/a.txt': 'a' });
    await page.locator('#upload-file').setInputFiles({ name: 'fresh.zip', mimeType: 'application/zip', buffer: zip });
    await dialog().getByRole('button', { name: 'Publish' }).click();
    await page.waitForURL(`${portal.url}/sites/docs/fresh`);
    await eventually(() => page.locator('h1').textContent()).toContain('Fresh Site');
    expect((await served('docs/fresh')).body).toBe(html('Fresh Site', 'brand new'));
  });

  test('edits metadata', async () => {
    await page.goto(`${portal.url}/sites/upload-me`);
    await page.getByRole('button', { name: 'Edit metadata' }).click();
    await dialog().getByLabel('Title').fill('Renamed by the portal');
    await dialog().getByLabel('Tags (comma-separated)').fill('one, two');
    await dialog().getByRole('button', { name: 'Save' }).click();
    await eventually(() => page.locator('h1').textContent()).toContain('Renamed by the portal');
    const site = await (await ctx.request.get(`${portal.url}/api/sites/upload-me`)).json();
    expect(site).toMatchObject({ title: 'Renamed by the portal', tags: ['one', 'two'] });
  });

  test('creates a key in the UI, uses it on the ingest API, revokes it, and it is refused', async () => {
    await page.goto(`${portal.url}/keys`);
    await page.locator('.keys-table tr', { hasText: 'seed' }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('ci-docs');
    await page.getByLabel('Applies to').selectOption('group');
    await page.getByLabel('Group (e.g. docs or team/docs)').fill('docs');
    await page.getByRole('button', { name: 'Create key' }).click();
    const token = (await page.locator('#new-token').textContent())!;
    expect(token).toMatch(/^key_[A-Za-z0-9_-]{43}$/);
    await page.getByRole('button', { name: 'Copy token' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(token);
    const row = page.locator('.keys-table tr[data-key-name="ci-docs"]');
    expect(await row.textContent()).toContain('publish on group docs');

    // a second key through the grants editor: one site, two capabilities, an expiry
    await page.getByLabel('Name', { exact: true }).fill('api-rollback');
    await page.getByLabel('Applies to').selectOption('site');
    await page.getByLabel(/^Site \(group\/slug/).fill('docs/api');
    await page.getByLabel('rollback', { exact: true }).check();
    await page.getByLabel(/^Expires on/).fill('2099-01-01');
    await page.getByRole('button', { name: 'Create key' }).click();
    const row2 = page.locator('.keys-table tr[data-key-name="api-rollback"]');
    await eventually(() => row2.textContent()).toContain('publish, rollback on site docs/api');
    expect(await row2.textContent()).toContain('2099-01-0');

    const site = { group: 'docs', slug: 'from-ci', title: 'From CI', files: { 'index.html': html('From CI', 'hello') } };
    expect((await publish(svc.url, token, site)).status).toBe(200);
    expect((await publish(svc.url, token, { ...site, group: 'team' })).status).toBe(403);

    await row.getByRole('button', { name: 'Revoke key ci-docs' }).click();
    expect(await dialog().textContent()).toContain('ci-docs');
    await dialog().getByRole('button', { name: 'Revoke' }).click();
    // a revoked key stays in the list, greyed, saying who revoked it when, and offers nothing more
    await eventually(() => row.getAttribute('data-status')).toBe('revoked');
    expect(await row.locator('td[data-label=Status]').textContent()).toMatch(/^Revoked(just now|1 minute ago) by admin$/);
    expect(await row.getByRole('button').count()).toBe(0);
    expect(await row.locator('td').first().evaluate((td) => getComputedStyle(td).color)).toBe('rgb(91, 101, 118)');
    // below the keys still in use
    expect(await page.locator('.keys-table tbody tr').last().getAttribute('data-key-name')).toBe('ci-docs');
    await shootView(browser, `${portal.url}/keys`, 'keys', (p) => p.locator('.keys-table tr[data-status=revoked]').waitFor());
    const refused = await publish(svc.url, token, site);
    expect(refused.status).toBe(401);
    expect((await refused.json()).code).toBe('unauthenticated');
  });

  test('unpublishes to the Trash, restores, and purges only after the path is typed', async () => {
    await page.goto(`${portal.url}/sites/old-news`);
    await page.getByRole('button', { name: 'Unpublish' }).click();
    await dialog().getByRole('button', { name: 'Unpublish' }).click();
    await page.waitForURL(`${portal.url}/`);
    expect((await served('old-news')).status).toBe(404);

    await page.goto(`${portal.url}/trash`);
    const rows = page.locator('.trash-table tbody tr');
    await eventually(() => rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-path')).sort())).toEqual(['junk', 'old-news']);
    expect(await rows.first().locator('td[data-label=Unpublished] time').textContent()).toMatch(/just now|minutes? ago/);
    await shootView(browser, `${portal.url}/trash`, 'trash', (p) => p.locator('.trash-table tbody tr').nth(1).waitFor());
    await page.getByRole('button', { name: 'Restore old-news' }).click();
    await dialog().getByRole('button', { name: 'Restore' }).click();
    await eventually(() => rows.count()).toBe(1);
    expect((await served('old-news')).status).toBe(200);

    await page.getByRole('button', { name: 'Purge junk' }).click();
    const purge = dialog().getByRole('button', { name: 'Purge forever' });
    expect(await purge.isDisabled()).toBe(true);
    await dialog().getByLabel(/Type .* to confirm/).fill('jun');
    expect(await purge.isDisabled()).toBe(true);
    await dialog().getByLabel(/Type .* to confirm/).fill('junk');
    await purge.click();
    await eventually(() => page.locator('.trash-body').textContent()).toContain('The trash is empty.');
    await shootView(browser, `${portal.url}/trash`, 'trash-empty', (p) => p.locator('.trash-body', { hasText: 'The trash is empty.' }).waitFor());
    const trash = await (await ctx.request.get(`${portal.url}/api/sites/deleted`)).json();
    expect(trash.count).toBe(0);
    expect((await ctx.request.get(`${portal.url}/api/sites/junk`)).status()).toBe(404);
  });

  test('the admin pages logged no console errors', () => {
    expect(errors).toEqual([]);
  });
});

/**
 * The portal in a real browser (Debian Chromium via playwright-core) against the real
 * service on the embedded stack: listing, search and filters, the site page, revisions,
 * downloads, Viewer versus Admin, phone width and error states.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import JSZip from 'jszip';
import { startService } from '../support/service.ts';
import { CSS, GUIDE_V, PREVIEW, VISIBLE, seed } from './seed.ts';
import { startAuthProxy, type AuthProxy } from './auth-proxy.ts';
import { PNG_1x1, chromiumAvailable, eventually, launch, newContext, shootView, watchErrors } from './support.ts';

type Service = Awaited<ReturnType<typeof startService>>;

describe.skipIf(!chromiumAvailable())('portal: browsing', () => {
  let svc: Service;
  let browser: Browser;
  let admin: BrowserContext;
  let page: Page;
  let errors: string[];
  // the portal as each user sees it, through a forward-auth proxy (see auth-proxy.ts)
  let asAdmin: AuthProxy;
  let asViewer: AuthProxy;
  let signedOut: AuthProxy;

  beforeAll(async () => {
    [svc, browser] = await Promise.all([startService(), launch()]);
    [asAdmin, asViewer, signedOut] = await Promise.all([
      startAuthProxy(svc.url, 'admin'),
      startAuthProxy(svc.url, 'vera'),
      startAuthProxy(svc.url, undefined),
      seed(svc.url, await svc.createKey(['--name', 'seed', '--admin'])),
    ]);
    admin = await newContext(browser);
    page = await admin.newPage();
    errors = watchErrors(page);
  });
  afterAll(async () => {
    await browser?.close();
    await Promise.all([asAdmin?.close(), asViewer?.close(), signedOut?.close()]);
    await svc?.stop();
  });

  const cards = () => page.locator('.card');
  const summary = () => page.locator('.summary');

  test('lists every site as a card, pages through them, marks hidden ones for admins', async () => {
    await page.goto(asAdmin.url);
    await eventually(() => summary().textContent()).toContain(`${VISIBLE + 1} sites`);
    expect(await cards().count()).toBe(48);
    await eventually(() => page.locator('.pager span').textContent()).toBe('Page 1 of 2');
    // default sort is date descending: the dated docs come first
    expect(await cards().first().locator('h3').textContent()).toContain('Docs Guide');
    const blog = page.locator('.card', { hasText: 'Team Blog' });
    expect(await blog.locator('img.favicon').getAttribute('src')).toBe('/api/sites/blog/favicon');
    expect(await blog.locator('a.live').getAttribute('href')).toBe(`http://blog.localhost:${svc.port}/`);
    // thumbnails: a live, sandboxed, inert iframe of the site once visible
    const thumb = page.frameLocator('.card[data-path="docs/guide"] iframe');
    await eventually(() => thumb.locator('h1').textContent({ timeout: 10_000 })).toBe('Docs Guide');
    expect(await page.locator('.card[data-path="docs/guide"] iframe').getAttribute('sandbox')).toBe('allow-scripts');
    // lazy: a card far below the fold has no thumbnail until it is scrolled into view
    const lastCard = cards().nth(47);
    expect(await lastCard.locator('.thumb iframe').count()).toBe(0);
    expect(await lastCard.locator('.thumb .initials').textContent()).toBe('BS'); // what shows until then
    await lastCard.scrollIntoViewIfNeeded();
    await eventually(() => lastCard.locator('.thumb iframe').count()).toBe(1);
    await page.evaluate(() => window.scrollTo(0, 0));
    // a site with a `preview` image shows that image, not an iframe
    await eventually(() => page.locator('.card[data-path="docs/api"] .thumb img').getAttribute('src')).toBe(PREVIEW);
    expect(await page.locator('.card[data-path="docs/api"] .thumb iframe').count()).toBe(0);
    // the live view is loaded from the site's own host, never from the portal's
    expect(new URL((await page.locator('.card[data-path="docs/guide"] iframe').getAttribute('src'))!).hostname).toBe('guide.docs.localhost');

    await page.getByRole('button', { name: 'Next →' }).click();
    await eventually(() => summary().textContent()).toContain(`showing 49–${VISIBLE + 1}`);
    expect(await cards().count()).toBe(VISIBLE + 1 - 48);
    expect(page.url()).toContain('page=2');

    // keyboard: from the search field, Tab reaches the first card's link and Enter opens it
    await page.goto(asAdmin.url);
    await page.getByLabel('Search', { exact: true }).focus();
    for (let i = 0; i < 30; i++) {
      await page.keyboard.press('Tab');
      if (await page.evaluate(() => document.activeElement?.matches('.card h3 a') ?? false)) break;
    }
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Docs Guide');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/sites\/docs\/guide$/);

    // a preview image that fails to load gives way to the title's initials
    await page.goto(`${asAdmin.url}/?q=broken`);
    await eventually(() => page.locator('.card[data-path="broken-preview"] .thumb img').count()).toBe(0);
    expect(await page.locator('.card[data-path="broken-preview"] .thumb .initials').textContent()).toBe('BP');

    await page.goto(`${asAdmin.url}/?q=secret`);
    const secret = page.locator('.card', { hasText: 'Secret Plans' });
    await secret.waitFor();
    expect(await secret.locator('.hidden-badge').textContent()).toBe('Hidden');
  });

  test('searches as you type, filters by tag and group, sorts, switches to the table view', async () => {
    await page.goto(asAdmin.url);
    await summary().filter({ hasText: 'sites' }).waitFor();
    await page.getByLabel('Search', { exact: true }).pressSequentially('refer', { delay: 40 });
    await eventually(() => cards().count()).toBe(1);
    expect(await cards().locator('h3').textContent()).toContain('API Reference');
    expect(new URL(page.url()).searchParams.get('q')).toBe('refer');

    await page.getByLabel('Search', { exact: true }).fill('');
    await eventually(() => cards().count()).toBe(48);
    await page.getByLabel('Tag', { exact: true }).selectOption('news');
    await eventually(() => summary().textContent()).toBe('1 site · showing 1–1');
    expect(await cards().locator('h3').textContent()).toContain('Team Blog');
    await page.getByLabel('Tag', { exact: true }).selectOption('');

    // the group tree: team → team/alpha → Alpha Demo, with breadcrumbs back up
    await page.locator('.group-tree a', { hasText: 'team' }).first().click();
    await eventually(() => cards().count()).toBe(1);
    expect(await cards().locator('h3').textContent()).toContain('Alpha Demo');
    expect(await page.locator('.breadcrumbs').textContent()).toContain('team');
    await page.locator('.breadcrumbs a', { hasText: 'All sites' }).click();
    await eventually(() => summary().textContent()).toContain(`${VISIBLE + 1} sites`);

    await page.goto(`${asAdmin.url}/?group=bulk`);
    await eventually(() => cards().first().locator('h3').textContent()).toContain('Bulk site 51');
    await page.getByLabel('Sort', { exact: true }).selectOption('title');
    await eventually(() => cards().first().locator('h3').textContent()).toContain('Bulk site 00');
    await page.getByRole('button', { name: 'Table' }).click();
    await eventually(() => page.locator('.sites-table tbody tr').count()).toBe(48);
    expect(await page.locator('.sites-table tbody tr').first().locator('td').nth(1).textContent()).toBe('bulk/b-00');
    expect(page.url()).toContain('view=table');
  });

  test('opens a site, browses its files, switches revisions, downloads a file and a zip', async () => {
    await page.goto(`${asAdmin.url}/?q=guide`);
    await page.locator('.card h3 a', { hasText: 'Docs Guide' }).click();
    await page.waitForURL(/\/sites\/docs\/guide/);
    expect(await page.locator('h1').textContent()).toContain('Docs Guide');
    expect(await page.locator('.meta-list').textContent()).toContain('docs/guide');
    expect(await page.getByRole('tab', { name: 'Files' }).getAttribute('aria-selected')).toBe('true');

    const tree = page.locator('.file-tree');
    await tree.locator('button.file', { hasText: 'new.txt' }).waitFor();
    expect(await tree.locator('button.file', { hasText: 'old.txt' }).count()).toBe(0);
    await tree.locator('button.file', { hasText: 'index.html' }).click();
    await eventually(() => page.locator('pre.code').textContent()).toContain('Version 3 of the guide');
    // directories fold and unfold
    const logo = tree.locator('button.file', { hasText: 'logo.png' });
    await tree.locator('summary', { hasText: 'img/' }).click();
    expect(await logo.isVisible()).toBe(false);
    await tree.locator('summary', { hasText: 'img/' }).click();
    await logo.click();
    await eventually(() => page.locator('.image-preview img').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(1);
    await tree.locator('button.file', { hasText: 'style.css' }).click();
    await eventually(() => page.locator('pre.code').textContent()).toBe(CSS);
    // the revision's full id is shown and copyable next to its short label
    expect(await page.locator('.rev-line code').textContent()).toMatch(/^\d{8}T\d{6}\.\d{9}Z$/);

    // revisions: the live one (v3), then archived v2, v1 (most recently archived first), each number first, to the second
    const select = page.getByLabel('Revision');
    const options = await select.locator('option').allTextContents();
    expect(options).toHaveLength(3);
    expect(options[0]).toMatch(/^v3 · \d{4}-\d\d-\d\d \d\d:\d\d:\d\d · live · /);
    expect(options[2]).toMatch(/^v1 · /);
    const v1 = await select.locator('option').nth(2).getAttribute('value');
    await select.selectOption(v1!);
    await tree.locator('button.file', { hasText: 'old.txt' }).waitFor();
    expect(await tree.locator('button.file', { hasText: 'new.txt' }).count()).toBe(0);
    await tree.locator('button.file', { hasText: 'index.html' }).click();
    await eventually(() => page.locator('pre.code').textContent()).toContain('Version 1 of the guide');

    const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download file' }).click()]);
    expect(file.suggestedFilename()).toBe('index.html');
    expect((await readFile((await file.path())!)).toString()).toBe(GUIDE_V(1));

    const [zipDl] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download .zip' }).click()]);
    const zip = await JSZip.loadAsync(await readFile((await zipDl.path())!));
    const names = Object.keys(zip.files).filter((n) => !zip.files[n].dir).sort();
    expect(names).toEqual(['css/style.css', 'img/logo.png', 'index.html', 'old.txt']);
    expect(await zip.file('index.html')!.async('string')).toBe(GUIDE_V(1));
    expect(Buffer.from(await zip.file('img/logo.png')!.async('uint8array')).equals(PNG_1x1)).toBe(true);
  });

  test('a Viewer sees no admin controls, and the API refuses admin calls anyway', async () => {
    const viewer = await newContext(browser);
    const vp = await viewer.newPage();
    await vp.goto(asViewer.url);
    await eventually(() => vp.locator('.summary').textContent()).toContain(`${VISIBLE} sites`);
    expect(await vp.locator('.whoami').textContent()).toContain('Viewer');
    expect(await vp.getByRole('button', { name: 'Publish a site' }).count()).toBe(0);
    expect(await vp.locator('nav[aria-label=Main] a').allTextContents()).toEqual(['Sites']);
    expect(await vp.locator('.hidden-badge').count()).toBe(0);
    // When a site changed, not who changed it (that names admin keys and users: admins only).
    for (const view of ['Cards', 'Table']) {
      await vp.getByRole('button', { name: view, exact: true }).click();
      await eventually(() => vp.locator('main').innerText()).toMatch(/ago|today|\d{4}-\d\d-\d\d/);
      expect(await vp.locator('.who, .by').count(), view).toBe(0);
      expect(await vp.locator('main').innerText(), view).not.toMatch(/by key|by admin/);
    }

    await vp.goto(`${asViewer.url}/sites/docs/guide`);
    await vp.locator('.file-tree button.file').first().waitFor();
    expect(await vp.locator('main').innerText()).not.toMatch(/by key|by admin/);
    expect(await vp.locator('.actions[aria-label="Admin actions"]').count()).toBe(0);
    expect(await vp.getByRole('tab').allTextContents()).toEqual(['Files', 'Compare', 'Storage']);
    // numbered as the service numbers them (Revision.number, spec §14), then the publish time
    expect(await vp.getByLabel('Revision').locator('option').first().textContent()).toMatch(/^v3 · \d{4}-\d\d-\d\d \d\d:\d\d:\d\d · live · /);
    await vp.getByLabel('Revision').selectOption({ index: 1 });
    await vp.locator('.file-tree button.file').first().waitFor();
    expect(await vp.getByRole('button', { name: 'Make this revision live' }).isVisible()).toBe(false);

    // hidden sites stay admin-only, even by URL; keys and trash are refused
    await vp.goto(`${asViewer.url}/sites/secret`);
    await eventually(() => vp.locator('[role=alert]').textContent()).toContain('Not found');
    await vp.goto(`${asViewer.url}/keys`);
    await eventually(() => vp.locator('[role=alert]').textContent()).toContain('not allowed');
    for (const [method, path] of [
      ['POST', '/api/sites/docs/guide/rollback'],
      ['DELETE', '/api/sites/docs/guide'],
      ['GET', '/api/keys'],
      ['GET', '/api/sites/deleted'],
      ['GET', '/api/sites/docs/guide/events'],
    ] as const) {
      const res = await viewer.request.fetch(`${asViewer.url}${path}`, { method, data: method === 'POST' ? {} : undefined });
      expect(res.status(), `${method} ${path}`).toBe(403);
      expect((await res.json()).code).toBe('forbidden');
    }
    await viewer.close();
  });

  test('every browsing view at desktop and phone size, nothing scrolls sideways (test-results/screenshots)', async () => {
    // the thumbnails in view have painted: what a person sees once the page has settled
    const cardsShown = (p: Page) =>
      p.waitForFunction(() => {
        const inView = [...document.querySelectorAll('.thumb')].filter((t) => t.getBoundingClientRect().top < innerHeight);
        return inView.length > 0 && inView.every((t) => !t.querySelector('iframe, img') || t.querySelector('.loaded'));
      }, undefined, { timeout: 10_000 }).then(() => p.waitForTimeout(400)); // and their 0.25 s fade-in is over
    // independent views, taken side by side (each in its own context)
    await Promise.all([
      shootView(browser, asAdmin.url, 'list', cardsShown, { fullPage: false }),
      shootView(browser, `${asAdmin.url}/?view=table&group=docs`, 'list-table', (p) => p.locator('.sites-table tbody tr').first().waitFor()),
      shootView(browser, asViewer.url, 'list-viewer', cardsShown, { fullPage: false }),
      shootView(browser, `${asAdmin.url}/?q=nothing-like-this`, 'list-no-match', (p) => p.locator('.results .state', { hasText: 'No sites match' }).waitFor()),
      shootView(browser, `${asAdmin.url}/sites/docs/guide?file=index.html`, 'site-files', (p) => p.locator('pre.code').waitFor()),
      shootView(browser, `${asViewer.url}/sites/docs/guide?file=img/logo.png`, 'site-files-viewer', (p) => p.locator('.image-preview img').waitFor()),
      shootView(browser, `${asAdmin.url}/nowhere/at/all/here/x`, 'not-found', (p) => p.locator('h1', { hasText: 'Page not found' }).waitFor()),
      // the 401 of /api/me is the point of this page
      shootView(browser, signedOut.url, 'signed-out', (p) => p.locator('h1', { hasText: 'Not signed in' }).waitFor(), { allowErrors: /status of 401/ }),
    ]);
  });

  test('says in words when not signed in or when the network is down', async () => {
    const anon = await newContext(browser);
    const ap = await anon.newPage();
    await ap.goto(signedOut.url);
    await eventually(() => ap.locator('h1').textContent()).toBe('Not signed in');
    expect(await ap.locator('[role=alert]').textContent()).toContain('You are not signed in');
    await anon.close();

    const down = await newContext(browser);
    const dp = await down.newPage();
    await dp.route('**/api/sites?*', (route) => route.abort('internetdisconnected'));
    await dp.goto(asAdmin.url);
    await eventually(() => dp.locator('.results [role=alert]').textContent()).toContain('could not be reached');
    await dp.unroute('**/api/sites?*');
    await dp.getByRole('button', { name: 'Retry' }).click();
    await eventually(() => dp.locator('.card').count()).toBe(48);
    await down.close();
  });

  test('the admin pages logged no console errors', () => {
    expect(errors).toEqual([]);
  });
});

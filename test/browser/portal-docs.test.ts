/**
 * The portal's header links to the docs the service serves at /docs/ (host/docs/site.ts):
 * a newcomer clicks "Docs", gets the docs index as a page of its own (not a portal route),
 * follows a link, and the pages read on a phone without sideways scrolling.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../support/service.ts';
import { chromiumAvailable, DESKTOP, launch, newContext, PHONE, SCREENSHOTS, shootView, watchErrors } from './support.ts';

const available = chromiumAvailable();
let svc: RunningService;
let browser: Browser;

beforeAll(async () => {
  if (!available) return;
  [svc, browser] = await Promise.all([startService({ env: { SITES_LOCAL_ADMIN: 'me' } }), launch()]);
});
afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

describe.skipIf(!available)('docs from the portal', () => {
  it('the header links to /docs/, which loads as its own page, and its links work', async () => {
    const ctx = await newContext(browser);
    try {
      const page = await ctx.newPage();
      const errors = watchErrors(page);
      await page.goto(`${svc.url}/`);
      const link = page.locator('#topbar a', { hasText: 'Docs' });
      await link.waitFor();
      expect(await link.getAttribute('href')).toBe('/docs/');
      await link.click();
      await page.waitForURL(`${svc.url}/docs/`);
      expect(await page.locator('h1').first().textContent()).toContain('Documentation');
      // A full page: the portal's script is not running here.
      expect(await page.locator('#topbar').count()).toBe(0);
      await page.locator('main a', { hasText: 'Your first site' }).click();
      await page.waitForURL(`${svc.url}/docs/tutorial.md`);
      expect(await page.locator('h1').first().textContent()).toContain('Tutorial');
      await page.locator('header a', { hasText: 'Portal' }).click();
      await page.waitForURL(`${svc.url}/`);
      await page.locator('#topbar a', { hasText: 'Docs' }).waitFor();
      expect(errors).toEqual([]);
    } finally {
      await ctx.close();
    }
  });

  it('the header keeps the Docs link on a phone', async () => {
    const ctx = await newContext(browser, PHONE);
    try {
      const page = await ctx.newPage();
      await page.goto(`${svc.url}/`);
      await expect(page.locator('#topbar a', { hasText: 'Docs' }).isVisible()).resolves.toBe(true);
    } finally {
      await ctx.close();
    }
  });

  it('screenshots: the docs index, the tutorial and the configuration reference (desktop and phone); nothing scrolls sideways on a phone', async () => {
    // The docs run no script (the apex's sandbox policy), so the page is measured through the
    // DevTools protocol rather than with an evaluate in the page.
    mkdirSync(SCREENSHOTS, { recursive: true });
    for (const [path, name] of [
      ['/docs/', 'docs-index'],
      ['/docs/tutorial.md', 'docs-tutorial'],
      ['/docs/reference/configuration.md', 'docs-configuration'],
      ['/docs/how-to/redirects-and-headers.md', 'docs-redirects'],
    ] as const) {
      for (const [size, viewport] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
        const ctx = await browser.newContext({ viewport, deviceScaleFactor: 1 });
        try {
          const page = await ctx.newPage();
          await page.goto(`${svc.url}${path}`);
          await page.locator('h1').first().waitFor();
          await page.screenshot({ path: join(SCREENSHOTS, `${name}-${size}.png`), fullPage: true });
          const cdp = await ctx.newCDPSession(page);
          const { cssContentSize } = (await cdp.send('Page.getLayoutMetrics')) as { cssContentSize: { width: number } };
          expect(cssContentSize.width, `${path} is wider than a ${size} screen`).toBeLessThanOrEqual(viewport.width);
        } finally {
          await ctx.close();
        }
      }
    }
    await shootView(browser, `${svc.url}/`, 'portal-header-docs-link', (page) => page.locator('#topbar a', { hasText: 'Docs' }).waitFor(), { fullPage: false });
  }, 120_000);
});

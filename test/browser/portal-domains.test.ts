/**
 * Custom domains on the portal's site page (spec §15), in a real browser against the real
 * service: an admin attaches one (a mistake first), the site answers at it, another site cannot
 * take it, a viewer sees it without the buttons, detaching takes it offline. Screenshots at
 * desktop and phone width in test-results/screenshots/site-domains-*.png.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startService } from '../support/service.ts';
import { seed } from './seed.ts';
import { startAuthProxy, type AuthProxy } from './auth-proxy.ts';
import { chromiumAvailable, eventually, launch, newContext, shootView, watchErrors } from './support.ts';

type Service = Awaited<ReturnType<typeof startService>>;

describe.skipIf(!chromiumAvailable())('portal: custom domains', () => {
  let svc: Service;
  let browser: Browser;
  let ctx: BrowserContext;
  let page: Page;
  let errors: string[];
  let asAdmin: AuthProxy;
  let asViewer: AuthProxy;
  const dialog = () => page.locator('dialog[open]');
  const domainsRow = () => page.locator('.meta-list .domains');

  /** GET / with this Host on the service, as a browser that resolved the domain to it would. */
  const served = (host: string): Promise<{ status: number; body: string }> =>
    new Promise((resolve, reject) => {
      http.get({ host: '127.0.0.1', port: svc.port, path: '/', headers: { Host: host } }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      }).on('error', reject);
    });

  beforeAll(async () => {
    [svc, browser] = await Promise.all([startService(), launch()]);
    [asAdmin, asViewer] = await Promise.all([startAuthProxy(svc.url, 'admin'), startAuthProxy(svc.url, 'vera'), seed(svc.url, await svc.createKey(['--name', 'seed', '--admin']))]);
    ctx = await newContext(browser);
    page = await ctx.newPage();
    errors = watchErrors(page);
  });
  afterAll(async () => {
    await browser?.close();
    await asAdmin?.close();
    await asViewer?.close();
    await svc?.stop();
  });

  test('an admin attaches a domain from the site page after a mistake, and the site answers at it', async () => {
    await page.goto(`${asAdmin.url}/sites/docs/api`);
    await eventually(() => domainsRow().textContent()).toContain('None');
    await page.getByRole('button', { name: 'Attach a domain…' }).click();
    const input = dialog().getByLabel('Domain');
    await input.fill('Docs.Example.com');
    await dialog().getByRole('button', { name: 'Attach' }).click();
    // The server's sentence, in the dialog, which stays open.
    await eventually(() => dialog().locator('[role=alert]').textContent()).toContain('is not in lower case');
    await input.fill('docs.example.com');
    await dialog().getByRole('button', { name: 'Attach' }).click();
    await eventually(() => dialog().count()).toBe(0);
    const link = domainsRow().getByRole('link', { name: 'docs.example.com' });
    await link.waitFor();
    expect(await link.getAttribute('href')).toBe('http://docs.example.com/');
    const res = await served('docs.example.com');
    expect(res.status).toBe(200);
    expect(res.body).toContain('API Reference');
    expect(errors.filter((e) => !/status of 400/.test(e))).toEqual([]);
  });

  test('another site cannot take it: the conflict is said in words', async () => {
    await page.goto(`${asAdmin.url}/sites/blog`);
    await page.getByRole('button', { name: 'Attach a domain…' }).click();
    await dialog().getByLabel('Domain').fill('docs.example.com');
    await dialog().getByRole('button', { name: 'Attach' }).click();
    await eventually(() => dialog().locator('[role=alert]').textContent()).toContain('docs.example.com is attached to docs/api');
    await dialog().getByRole('button', { name: 'Cancel' }).click();
    expect((await served('docs.example.com')).body).toContain('API Reference');
  });

  test('a viewer sees the domain as a link, without attach or detach', async () => {
    const viewer = await newContext(browser);
    const vp = await viewer.newPage();
    await vp.goto(`${asViewer.url}/sites/docs/api`);
    await vp.locator('.meta-list .domains').getByRole('link', { name: 'docs.example.com' }).waitFor();
    expect(await vp.getByRole('button', { name: /Attach a domain|Detach/ }).count()).toBe(0);
    // And a site without any shows no row at all.
    await vp.goto(`${asViewer.url}/sites/blog`);
    await vp.locator('.meta-list').waitFor();
    expect(await vp.locator('.meta-list dt', { hasText: 'Custom domains' }).count()).toBe(0);
    await viewer.close();
  });

  test('the site page with domains, and the attach dialog, at desktop and phone size (test-results/screenshots)', async () => {
    await page.goto(`${asAdmin.url}/sites/docs/api`);
    await page.getByRole('button', { name: 'Attach a domain…' }).click();
    await dialog().getByLabel('Domain').fill('www.example-docs.org');
    await dialog().getByRole('button', { name: 'Attach' }).click();
    await eventually(() => dialog().count()).toBe(0);
    await domainsRow().getByRole('link', { name: 'www.example-docs.org' }).waitFor();
    await Promise.all([
      shootView(browser, `${asAdmin.url}/sites/docs/api`, 'site-domains', (p) => p.locator('.meta-list .domains a', { hasText: 'www.example-docs.org' }).waitFor()),
      shootView(browser, `${asAdmin.url}/sites/docs/api`, 'site-domains-attach', async (p) => {
        await p.getByRole('button', { name: 'Attach a domain…' }).click();
        await p.locator('dialog[open]').getByLabel('Domain').fill('help.example.com');
      }, { fullPage: false }),
    ]);
  });

  test('detaching asks first, then the domain stops answering at once', async () => {
    await page.goto(`${asAdmin.url}/sites/docs/api`);
    await page.getByRole('button', { name: 'Detach docs.example.com' }).click();
    expect(await dialog().textContent()).toContain('stops answering at docs.example.com');
    await dialog().getByRole('button', { name: 'Detach' }).click();
    await eventually(() => dialog().count()).toBe(0);
    await eventually(() => domainsRow().getByRole('link', { name: 'docs.example.com' }).count()).toBe(0);
    expect(await domainsRow().getByRole('link', { name: 'www.example-docs.org' }).count()).toBe(1);
    expect((await served('docs.example.com')).status).toBe(404);
  });
});

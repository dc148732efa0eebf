/**
 * The portal's Activity and Webhooks views (spec §16) in Chromium, as the signed-in admin:
 * filters as chips that go in the URL, entries linking to sites, revisions and diffs; a
 * webhook created in the form (its secret shown once), its deliveries with status, attempts
 * and last answer, and "Send again". Screenshots of each view at 1280 and 390 px.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startService } from '../support/service.ts';
import { startReceiver } from '../support/webhook-receiver.ts';
import { startAuthProxy, type AuthProxy } from './auth-proxy.ts';
import { chromiumAvailable, eventually, launch, newContext, page as html, publishOk, shootView, watchErrors } from './support.ts';

type Service = Awaited<ReturnType<typeof startService>>;

describe.skipIf(!chromiumAvailable())('portal: activity and webhooks', () => {
  let svc: Service;
  let browser: Browser;
  let ctx: BrowserContext;
  let page: Page;
  let errors: string[];
  let portal: AuthProxy;
  let admin: string;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const api = (path: string, init: RequestInit = {}) => fetch(new URL(path, svc.url), { ...init, headers: { Authorization: `Bearer ${admin}`, 'Content-Type': 'application/json', ...(init.headers ?? {}) } });

  beforeAll(async () => {
    [svc, browser, receiver] = await Promise.all([startService({ env: { SITES_WEBHOOK_ALLOW_PRIVATE: 'true' } }), launch(), startReceiver()]);
    portal = await startAuthProxy(svc.url, 'admin');
    admin = await svc.createKey(['--name', 'release-bot', '--admin']);
    // A failing receiver path: its delivery shows as retrying with the answer.
    receiver.answer = (r) => (r.path === '/broken' ? { status: 500, body: 'database is down' } : { status: 200 });
    expect((await api('/api/webhooks', { method: 'POST', body: JSON.stringify({ url: `${receiver.url}/chat`, events: ['site.published', 'site.rolled_back'], target: 'docs', description: 'Team chat' }) })).status).toBe(201);
    expect((await api('/api/webhooks', { method: 'POST', body: JSON.stringify({ url: `${receiver.url}/broken`, events: ['site.published'] }) })).status).toBe(201);
    for (const v of [1, 2, 3]) await publishOk(svc.url, admin, { group: 'docs', slug: 'guide', title: 'Guide', files: { 'index.html': html('Guide', `v${v}`), ...(v > 1 ? { [`page${v}.html`]: html('Page', `${v}`) } : {}) } });
    await publishOk(svc.url, admin, { group: 'blog', slug: 'news', title: 'News', files: { 'index.html': html('News', 'hello') } });
    expect((await api('/api/sites/docs/guide/rollback', { method: 'POST', body: '{}' })).status).toBe(200);
    expect((await api('/api/keys', { method: 'POST', body: JSON.stringify({ name: 'docs-ci', grants: [{ kind: 'group', target: 'docs', permissions: ['publish'] }] }) })).status).toBe(201);
    ctx = await newContext(browser);
    await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: portal.url });
    page = await ctx.newPage();
    errors = watchErrors(page);
  });
  afterAll(async () => {
    await browser?.close();
    await portal?.close();
    await receiver?.stop();
    await svc?.stop();
  });

  test('Activity lists what happened by whom; chips filter and the filters live in the URL; entries link to sites, revisions and diffs', async () => {
    await page.goto(`${portal.url}/`);
    await page.getByRole('link', { name: 'Activity' }).click();
    const entries = page.locator('.activity-entry');
    await entries.first().waitFor();
    expect(await entries.first().getAttribute('data-type')).toBe('KeyIssued');
    const rolled = entries.filter({ has: page.locator('[data-type=SiteRolledBack]') }).or(page.locator('.activity-entry[data-type=SiteRolledBack]'));
    await expect.poll(() => rolled.count()).toBe(1);
    const diff = rolled.getByRole('link', { name: 'See what changed' });
    expect(await diff.getAttribute('href')).toMatch(/^\/sites\/docs\/guide\?tab=history&diff=\d{8}T\d{6}\.\d{9}Z\.\.\d{8}T\d{6}\.\d{9}Z$/);
    const published = page.locator('.activity-entry[data-type=SitePublished]').first();
    expect(await published.getByRole('link', { name: /^Revision / }).getAttribute('href')).toMatch(/^\/sites\/blog\/news\?rev=/);

    // A quick chip: only publishes.
    await page.getByRole('button', { name: 'Publishes' }).click();
    await page.waitForURL(/\/activity\?type=SitePublished$/);
    await eventually(() => entries.evaluateAll((els) => [...new Set(els.map((e) => e.getAttribute('data-type')))])).toEqual(['SitePublished']);
    // An entry's site adds the site filter: a second chip, both in the URL.
    await page.locator('.activity-entry[data-type=SitePublished]', { hasText: 'docs/guide' }).first().getByRole('button', { name: 'Filter by docs/guide' }).click();
    await page.waitForURL(/type=SitePublished&site=docs%2Fguide|site=docs%2Fguide&type=SitePublished/);
    await eventually(() => entries.count()).toBe(3);
    expect(await page.locator('.chip.active').count()).toBe(2);
    // Removing the type chip keeps the site filter: everything that happened to docs/guide.
    const guide = ((await (await api('/api/events?site=docs/guide')).json()) as { events: { type: string }[] }).events;
    expect(guide.map((e) => e.type)).toContain('SiteRolledBack');
    await page.getByRole('button', { name: 'Remove the type filter' }).click();
    await eventually(() => entries.count()).toBe(guide.length);
    await shootView(browser, `${portal.url}/activity?site=docs`, 'activity-filtered', (p) => p.locator('.activity-entry').nth(3).waitFor());
    await shootView(browser, `${portal.url}/activity`, 'activity', (p) => p.locator('.activity-entry').nth(6).waitFor());

    // By whom: the form adds an actor chip.
    await page.goto(`${portal.url}/activity`);
    await page.locator('#activity-actor').fill('admin');
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    await page.waitForURL(/actor=admin/);
    await page.locator('.state').waitFor();
    expect(await page.locator('.state').textContent()).toBe('Nothing matches these filters.'); // everything was done with the key
    // The export: the same events as JSON lines.
    await page.goto(`${portal.url}/activity?type=SitePublished`);
    await entries.first().waitFor();
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export (NDJSON)' }).click();
    const file = await (await download).path();
    const lines = (await import('node:fs')).readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => l.type)).toEqual(['SitePublished', 'SitePublished', 'SitePublished', 'SitePublished']);
    expect(errors).toEqual([]);
  });

  test('Webhooks: add one (secret shown once), see deliveries with status, attempts and last answer, send one again, delete', async () => {
    await page.goto(`${portal.url}/webhooks`);
    const rows = page.locator('.webhooks-table tbody tr');
    await eventually(() => rows.count()).toBe(2);
    await page.getByLabel('URL').fill(`${receiver.url}/deploys`);
    await page.getByLabel('rolled back').first().check();
    await page.getByLabel('Sites (site and preview events; empty = all)').fill('blog');
    await page.getByLabel('Description (optional)').fill('Deploy tracker');
    await page.getByRole('button', { name: 'Add webhook' }).click();
    const secret = page.locator('#new-secret');
    await secret.waitFor();
    expect(await secret.textContent()).toMatch(/^whsec_/);
    await eventually(() => rows.count()).toBe(3);
    await shootView(browser, `${portal.url}/webhooks`, 'webhooks', (p) => p.locator('.webhooks-table tbody tr').nth(2).waitFor());
    // A refused destination is explained in the form.
    await page.getByLabel('URL').fill('https://hooks.invalid/x');
    await page.getByRole('button', { name: 'Add webhook' }).click();
    await eventually(() => page.locator('.hook-form .error').textContent()).toMatch(/^url: hooks\.invalid does not resolve/);

    // The failing webhook's deliveries: retrying, with the receiver's answer.
    const broken = rows.filter({ hasText: '/broken' });
    await broken.getByRole('link', { name: 'Deliveries' }).click();
    const deliveries = page.locator('.deliveries-table tbody tr');
    await eventually(async () => {
      await page.getByRole('button', { name: 'Refresh' }).click().catch(() => undefined);
      return deliveries.count();
    }).toBe(4);
    // The oldest is retried (with the answer); the newer ones wait behind it: one webhook's deliveries go in log order.
    await eventually(async () => {
      await page.getByRole('button', { name: 'Refresh' }).click();
      return deliveries.last().textContent();
    }).toContain('database is down');
    expect(await deliveries.last().getAttribute('data-status')).toBe('pending');
    expect(await deliveries.first().textContent()).toContain('Waiting');
    await shootView(browser, page.url(), 'webhook-deliveries', (p) => p.locator('.deliveries-table tbody tr').nth(3).waitFor());

    // The chat webhook: delivered; send one again and the receiver gets the same webhook-id.
    await page.goto(`${portal.url}/webhooks`);
    await rows.filter({ hasText: '/chat' }).getByRole('link', { name: 'Deliveries' }).click();
    await eventually(() => deliveries.count()).toBe(4); // three publishes and the rollback of docs/guide
    const first = deliveries.first();
    await eventually(async () => {
      await page.getByRole('button', { name: 'Refresh' }).click();
      return first.getAttribute('data-status');
    }).toBe('succeeded');
    const id = (await first.getAttribute('data-delivery-id'))!;
    const before = receiver.received.filter((r) => r.headers['webhook-id'] === id).length;
    await first.getByRole('button', { name: `Send ${id} again` }).click();
    await eventually(() => receiver.received.filter((r) => r.headers['webhook-id'] === id).length).toBe(before + 1);

    // Delete the tracker hook.
    await page.goto(`${portal.url}/webhooks`);
    await rows.filter({ hasText: '/deploys' }).getByRole('button', { name: /^Delete webhook/ }).click();
    await page.locator('dialog[open]').getByRole('button', { name: 'Delete' }).click();
    await eventually(() => rows.count()).toBe(2);
    expect(errors.filter((e) => !/status of (400|500)/.test(e))).toEqual([]);
  }, 90_000);
});

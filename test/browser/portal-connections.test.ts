/**
 * The portal's MCP Connections view, in a real browser against the real service: connections
 * made through the real OAuth flow (registration, consent as `Remote-User: admin`, PKCE code
 * exchange) show with their grants and status; revoking one in the UI (keyboard only) makes
 * its access token fail at `/mcp` with 401. Viewers and a service with MCP turned off get no
 * Connections entry.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startService, type RunningService } from '../support/service.ts';
import { connectClient, rawMcp, tokenRequest, type ConnectedClient, type ConsentChoice } from '../mcp/oauth-helpers.ts';
import { startAuthProxy, type AuthProxy } from './auth-proxy.ts';
import { chromiumAvailable, eventually, launch, newContext, shootView, watchErrors } from './support.ts';

type Tokens = ConnectedClient;
const connect = (svc: RunningService, name: string, choice: ConsentChoice, exchange = true) => connectClient(svc.url, name, choice, exchange);

describe.skipIf(!chromiumAvailable())('portal: MCP connections', () => {
  let svc: RunningService;
  let browser: Browser;
  let ctx: BrowserContext;
  let page: Page;
  let errors: string[];
  let admin: AuthProxy;
  let claude: Tokens;
  let helper: Tokens;
  const row = (name: string) => page.locator(`.connections-table tr[data-client-name="${name}"]`);
  const dialog = () => page.locator('dialog[open]');

  beforeAll(async () => {
    [svc, browser] = await Promise.all([startService(), launch()]);
    admin = await startAuthProxy(svc.url, 'admin');
    ctx = await newContext(browser);
    page = await ctx.newPage();
    errors = watchErrors(page);
  });
  afterAll(async () => {
    await browser?.close();
    await admin?.close();
    await svc?.stop();
  });

  test('shows the empty state, then connections made through OAuth with grants in words and their status', async () => {
    await page.goto(`${admin.url}/connections`);
    const nav = page.getByRole('navigation', { name: 'Main' });
    expect(await nav.getByRole('link').allTextContents()).toEqual(['Sites', 'Trash', 'Storage', 'Activity', 'Webhooks', 'API Keys', 'Connections']);
    expect(await nav.getByRole('link', { name: 'Connections' }).getAttribute('aria-current')).toBe('page');
    await eventually(() => page.locator('main .state').textContent()).toContain('No MCP connections yet');
    expect(await page.locator('main .state').textContent()).toContain(`${admin.url}/mcp`);
    await shootView(browser, `${admin.url}/connections`, 'connections-empty', (p) => p.locator('main .state', { hasText: 'No MCP connections yet' }).waitFor());

    claude = (await connect(svc, 'Claude Desktop', { kind: 'group', group: 'mcp', caps: ['publish', 'patch'] }))!;
    helper = (await connect(svc, 'CI Helper', { kind: 'site', site: 'docs/app', caps: ['rollback', 'publish'] }))!;
    await connect(svc, 'Abandoned Bot', { kind: 'all', caps: ['publish'] }, false);
    const refreshed = await tokenRequest(svc.url, { grant_type: 'refresh_token', refresh_token: claude.refresh, client_id: claude.clientId });
    expect(refreshed.status).toBe(200);
    claude = { ...claude, access: refreshed.body.access_token as string, refresh: refreshed.body.refresh_token as string };
    expect((await rawMcp(svc.url, claude.access)).status).toBe(200); // now it has been used

    // reach the view by the nav link, with the keyboard
    await page.goto(`${admin.url}/`);
    await page.getByRole('link', { name: 'Connections' }).focus();
    await page.keyboard.press('Enter');
    // The consent whose code was never exchanged is no connection (spec §13: active ones only).
    await eventually(() => page.locator('.connections-table tbody tr').count()).toBe(2);
    expect(await row('Abandoned Bot').count()).toBe(0);
    expect(await page.title()).toBe('Connections · Sites');
    const headers = await page.locator('.connections-table thead th').allTextContents();
    expect(headers).toEqual(['Client', 'Approved by', 'Access', 'Created', 'Last used', 'Expires', 'Status', 'Actions']);

    const cells = (name: string) => row(name).locator('td').allInnerTexts();
    const [client, user, access, created, lastUsed, expires, status] = await cells('Claude Desktop');
    expect(client).toContain('Claude Desktop');
    expect(user).toBe('admin');
    expect(access).toBe('publish, patch on group mcp');
    // times read relative ("just now", "in 30 days"), the exact time on hover
    expect(created).toBe('just now');
    expect(lastUsed).toBe('just now');
    expect(expires).toMatch(/^in \d+ (days|hours)$|^\d{4}-\d\d-\d\d$/);
    expect(await row('Claude Desktop').locator('td').nth(3).locator('time').getAttribute('title')).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    expect(status).toBe('Active');
    const helperCells = await cells('CI Helper');
    expect(helperCells[2]).toBe('publish, rollback on site docs/app');
    expect(helperCells[4]).toBe('Never');
    expect(helperCells[6]).toBe('Active');
    // every connection that is not revoked can be revoked, each button named after its client
    expect(await page.getByRole('button', { name: /^Revoke connection / }).count()).toBe(2);
  });

  test('revokes with the keyboard after confirming (Escape cancels), and the access token is refused at /mcp', async () => {
    expect((await rawMcp(svc.url, helper.access)).status).toBe(200);
    const revoke = page.getByRole('button', { name: 'Revoke connection CI Helper' });

    // Escape closes the confirmation and changes nothing
    await revoke.focus();
    await page.keyboard.press('Enter');
    await dialog().waitFor();
    expect(await dialog().getByRole('heading').textContent()).toBe('Revoke connection “CI Helper”?');
    expect(await dialog().textContent()).toContain('publish, rollback on site docs/app');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Cancel'); // a destructive dialog starts on Cancel
    await page.keyboard.press('Escape');
    await eventually(() => dialog().count()).toBe(0);
    expect((await rawMcp(svc.url, helper.access)).status).toBe(200);
    expect(await row('CI Helper').getAttribute('data-status')).toBe('active');

    await revoke.focus();
    await page.keyboard.press('Enter');
    await dialog().waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Revoke');
    await page.keyboard.press('Enter');
    await eventually(() => dialog().count()).toBe(0);
    await eventually(() => page.locator('#toasts').textContent()).toContain('Connection “CI Helper” was revoked.');
    await eventually(() => row('CI Helper').count()).toBe(0);

    // the very next call with its access token is refused; so is its refresh token; the others still work
    const refused = await rawMcp(svc.url, helper.access);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('invalid_token');
    expect(await tokenRequest(svc.url, { grant_type: 'refresh_token', refresh_token: helper.refresh, client_id: helper.clientId })).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect((await rawMcp(svc.url, claude.access)).status).toBe(200);

    // revoked connections are hidden until asked for; then they show when and by whom, without a Revoke button
    const show = page.getByLabel('Show revoked connections (1)');
    await show.check();
    await eventually(() => row('CI Helper').getAttribute('data-status')).toBe('revoked');
    expect(page.url()).toContain('revoked=1');
    expect(await row('CI Helper').locator('td').nth(6).innerText()).toMatch(/^Revoked\njust now · revoked by admin$/);
    expect(await row('CI Helper').getByRole('button').count()).toBe(0);
    await shootView(browser, `${admin.url}/connections?revoked=1`, 'connections', (p) => p.locator('.connections-table tr[data-status=revoked]').waitFor());
    expect(errors).toEqual([]);
  });

  test('fits a 390-px phone: rows stack with their labels, nothing scrolls sideways', async () => {
    const phone = await newContext(browser, { width: 390, height: 844 });
    const pp = await phone.newPage();
    const phoneErrors = watchErrors(pp);
    await pp.goto(`${admin.url}/connections?revoked=1`);
    await pp.locator('.connections-table tr[data-client-name="Claude Desktop"]').waitFor();
    expect(await pp.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    const button = pp.getByRole('button', { name: 'Revoke connection Claude Desktop' });
    const box = (await button.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    const label = await pp.locator('.connections-table tr[data-client-name="Claude Desktop"] td[data-label="Approved by"]').evaluate((td) => getComputedStyle(td, '::before').content);
    expect(label).toBe('"Approved by"');
    expect(phoneErrors).toEqual([]);
    await phone.close();
  });

  test('Viewers get no Connections entry and the view says they are not allowed', async () => {
    const viewer = await startAuthProxy(svc.url, 'viewer');
    const vctx = await newContext(browser);
    try {
      const vp = await vctx.newPage();
      await vp.goto(`${viewer.url}/`);
      const nav = vp.getByRole('navigation', { name: 'Main' });
      await nav.waitFor();
      expect(await nav.getByRole('link').allTextContents()).toEqual(['Sites']);
      await vp.goto(`${viewer.url}/connections`);
      await eventually(() => vp.locator('main [role=alert]').textContent()).toContain('You are not allowed to do this');
      expect(await vp.locator('.connections-table').count()).toBe(0);
    } finally {
      await vctx.close();
      await viewer.close();
    }
  });

  test('with the MCP connector turned off, admins get no Connections entry and the view says why', async () => {
    const off = await startService({ env: { SITES_MCP_ENABLED: 'false' } });
    const proxy = await startAuthProxy(off.url, 'admin');
    const octx = await newContext(browser);
    try {
      const op = await octx.newPage();
      const offErrors = watchErrors(op);
      await op.goto(`${proxy.url}/`);
      const nav = op.getByRole('navigation', { name: 'Main' });
      await nav.waitFor();
      expect(await nav.getByRole('link').allTextContents()).toEqual(['Sites', 'Trash', 'Storage', 'Activity', 'Webhooks', 'API Keys']);
      await op.goto(`${proxy.url}/connections`);
      await eventually(() => op.locator('main .state').textContent()).toContain('The MCP connector is turned off');
      expect((await fetch(`${off.url}/api/mcp/connections`, { headers: { 'Remote-User': 'admin' } })).status).toBe(404);
      expect(offErrors).toEqual([]);
    } finally {
      await octx.close();
      await proxy.close();
      await off.stop();
    }
  });
});

/**
 * The MCP consent page and its error page in Chromium (issue 30, issue 29): styled like the
 * portal, Approve primary and Deny secondary, what the connector could do where in plain
 * words, the metadata document's host shown prominently; the approval's 303 to the host's
 * loopback redirect URI goes through under the page's CSP. Screenshots at 1280 and 390 px:
 * test-results/screenshots/mcp-consent-*.png and mcp-error-*.png.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DocumentServer } from '../support/metadata-docs.ts';
import { startService, type RunningService } from '../support/service.ts';
import { createTestPki } from '../support/tls.ts';
import { startAuthProxy, type AuthProxy } from './auth-proxy.ts';
import { chromiumAvailable, launch, page as sitePage, publishOk, SCREENSHOTS, watchErrors } from './support.ts';

const SIZES = [['desktop', { width: 1280, height: 800 }], ['phone', { width: 390, height: 844 }]] as const;

describe.skipIf(!chromiumAvailable())('MCP consent page in the browser', () => {
  let svc: RunningService;
  let browser: Browser;
  let proxy: AuthProxy;
  const docs = new DocumentServer();
  let callback: http.Server;
  let callbackUrl = '';
  const received: URLSearchParams[] = [];

  const authorizeUrl = (clientId: string, overrides: Record<string, string> = {}) => {
    const challenge = createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url');
    const u = new URL(`${proxy.url}/mcp/oauth/authorize`);
    const params = { client_id: clientId, redirect_uri: callbackUrl, response_type: 'code', code_challenge: challenge, code_challenge_method: 'S256', state: 'st-b', scope: 'publish rollback', ...overrides };
    for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
    return u.toString();
  };

  /** Opens `url` at both sizes, checks the page, and saves `test-results/screenshots/<name>-<size>.png`. */
  async function shoot(url: string, name: string, check: (page: Page) => Promise<void>) {
    mkdirSync(SCREENSHOTS, { recursive: true });
    for (const [size, viewport] of SIZES) {
      const ctx = await browser.newContext({ viewport, deviceScaleFactor: 1 });
      try {
        const page = await ctx.newPage();
        const errors = watchErrors(page);
        await page.goto(url);
        await check(page);
        await page.screenshot({ path: join(SCREENSHOTS, `${name}-${size}.png`), fullPage: true });
        expect(await page.evaluate(() => document.documentElement.scrollWidth), `${name} scrolls sideways at ${viewport.width}px`).toBeLessThanOrEqual(viewport.width);
        // An error page's own 400 status is logged by Chromium; nothing else may be.
        expect(errors.filter((e) => !/status of 40[0-3]/.test(e))).toEqual([]);
      } finally {
        await ctx.close();
      }
    }
  }

  beforeAll(async () => {
    const pki = await createTestPki();
    await docs.start(pki);
    callback = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (url.pathname === '/callback') received.push(url.searchParams); // not the browser's favicon request
      // The MCP host's own web page, on another origin: a link to the authorization URL.
      if (url.pathname === '/host') {
        const to = (url.searchParams.get('to') ?? '').replace(/&/g, '&amp;').replace(/"/g, '&quot;');
        return void res.writeHead(200, { 'Content-Type': 'text/html' }).end(`<!doctype html><title>Host</title><a id="connect" href="${to}">Connect to Sites</a>`);
      }
      res.end('back in the application');
    });
    await new Promise<void>((r) => callback.listen(0, '127.0.0.1', r));
    callbackUrl = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`;
    [svc, browser] = await Promise.all([
      startService({ env: { NODE_EXTRA_CA_CERTS: pki.caFile, SITES_OAUTH_ALLOW_PRIVATE_METADATA: 'true', SITES_MCP_GROUP: 'agents' } }),
      launch(),
    ]);
    proxy = await startAuthProxy(svc.url, 'admin');
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await proxy?.close();
    callback?.closeAllConnections();
    callback?.close();
    await Promise.all([svc?.stop(), docs.stop()]);
  });

  test('a metadata-document client: its host prominently, the grants in plain words, Approve primary; approving reaches the host with code and iss', async () => {
    const clientId = docs.json('/oauth/editor.json', (url) => ({ client_id: url, client_name: 'Code Editor', redirect_uris: [callbackUrl] }));
    const host = `localhost:${docs.port}`;
    await shoot(authorizeUrl(clientId), 'mcp-consent', async (page) => {
      expect(await page.locator('.client-host').textContent()).toBe(host);
      const summary = await page.locator('.summary').innerText();
      expect(summary).toMatch(/on the sites of the group agents and the groups beneath it/);
      expect(summary).toMatch(/publish new sites/);
      expect(summary).toMatch(/switch back to one/); // rollback, asked for in scope
      const approve = page.getByRole('button', { name: 'Approve' });
      const deny = page.getByRole('button', { name: 'Deny' });
      const [approveBg, denyBg] = await Promise.all([approve, deny].map((b) => b.evaluate((el) => getComputedStyle(el).backgroundColor)));
      expect(approveBg).toBe('rgb(36, 87, 214)'); // the portal's accent: primary
      expect(denyBg).toBe('rgb(255, 255, 255)'); // secondary
    });
    // The approver can narrow it: the choices open without script.
    await shoot(authorizeUrl(clientId), 'mcp-consent-choices', async (page) => {
      await page.getByText('Change what it may do, and where').click();
      expect(await page.getByRole('checkbox', { name: /Roll back/ }).isChecked()).toBe(true);
      expect(await page.getByRole('checkbox', { name: /Purge/ }).isChecked()).toBe(false);
      expect(await page.getByRole('textbox', { name: 'group' }).inputValue()).toBe('agents');
    });
    const ctx = await browser.newContext();
    try {
      const page = await ctx.newPage();
      await page.goto(authorizeUrl(clientId));
      await page.getByRole('button', { name: 'Approve' }).click();
      await page.waitForURL((u) => u.toString().startsWith(callbackUrl));
      const query = received.at(-1)!;
      expect(query.get('code')).toMatch(/\S/);
      expect(query.get('iss')).toBe(svc.url);
      expect(query.get('state')).toBe('st-b');
    } finally {
      await ctx.close();
    }
  });

  test('a registered client: its name marked as its own claim', async () => {
    const reg = await fetch(`${svc.url}/mcp/oauth/register`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ client_name: 'Desktop Assistant', redirect_uris: [callbackUrl] }),
    });
    const { client_id } = (await reg.json()) as { client_id: string };
    await shoot(authorizeUrl(client_id, { scope: '' }), 'mcp-consent-registered', async (page) => {
      expect(await page.locator('.client-name').textContent()).toBe('Desktop Assistant');
      expect(await page.locator('.client').innerText()).toMatch(/nobody has checked it/);
    });
  });

  test('the error page: no redirect, what went wrong in plain words, the OAuth code for developers', async () => {
    const clientId = docs.json('/oauth/other.json', () => ({ client_id: 'https://someone-else.example/client.json', redirect_uris: [callbackUrl] }));
    const before = received.length;
    await shoot(authorizeUrl(clientId), 'mcp-error', async (page) => {
      expect(page.url()).toContain('/mcp/oauth/authorize');
      expect(await page.locator('h1').textContent()).toBe('Cannot connect');
      expect(await page.locator('main').innerText()).toMatch(/names another client_id/);
      expect(await page.locator('main').innerText()).toMatch(/invalid_client/);
    });
    expect(received.length).toBe(before);
  });

  test('attack: a published page loads the consent URL with the approver\'s sign-in (img, script, iframe, prefetch, fetch): nothing fetched; the host\'s link still opens the consent', async () => {
    const attacker = await svc.createKey(['--name', 'attacker', '--grant', 'evil:publish']);
    const kinds = ['img', 'script', 'iframe', 'prefetch', 'fetch'] as const;
    const ids = Object.fromEntries(kinds.map((k) => [k, docs.json(`/oauth/loaded-${k}.json`, (url) => ({ client_id: url, redirect_uris: [callbackUrl] }), { 'Cache-Control': 'no-store' })]));
    const url = (k: (typeof kinds)[number]) => JSON.stringify(authorizeUrl(ids[k]!));
    const body = [
      `<img src=${url('img')}>`,
      `<script src=${url('script')}></script>`,
      `<iframe src=${url('iframe')}></iframe>`,
      `<link rel="prefetch" href=${url('prefetch')}>`,
      `<script>fetch(${url('fetch')}, { mode: 'no-cors', credentials: 'include' }).catch(() => undefined).finally(() => { document.title = 'sent'; });</script>`,
    ].join('');
    await publishOk(svc.url, attacker, { group: 'evil', slug: 'pixel', title: 'Pixel', files: { 'index.html': sitePage('Pixel', body) } });
    const ctx = await browser.newContext();
    try {
      const page = await ctx.newPage();
      // What the browser sent (some answers are withheld from the page: ORB, opaque responses).
      const sent = new Set<string>();
      ctx.on('request', (r) => {
        if (r.url().includes('/mcp/oauth/authorize')) sent.add(new URL(r.url()).searchParams.get('client_id')!);
      });
      await page.goto(`http://pixel.evil.localhost:${new URL(proxy.url).port}/`);
      await page.waitForFunction(() => document.title === 'sent');
      // The browser did send them with the approver's sign-in (a prefetch may not be sent at all)…
      await expect.poll(() => ['img', 'script', 'iframe', 'fetch'].filter((k) => sent.has(ids[k]!))).toEqual(['img', 'script', 'iframe', 'fetch']);
      await page.waitForLoadState('networkidle');
      // …and none made the service fetch a document.
      for (const k of kinds) expect(docs.count(`/oauth/loaded-${k}.json`), k).toBe(0);

      // The host's page on its own origin sends the person over with a plain link.
      await page.goto(`${callbackUrl.replace('/callback', '/host')}?to=${encodeURIComponent(authorizeUrl(ids.img!))}`);
      await page.click('#connect');
      await page.getByRole('button', { name: 'Approve' }).waitFor();
      expect(docs.count('/oauth/loaded-img.json')).toBe(1);
    } finally {
      await ctx.close();
    }
  });
});

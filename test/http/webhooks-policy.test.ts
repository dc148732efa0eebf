/**
 * The default webhook policy over HTTP (SITES_WEBHOOK_ALLOW_PRIVATE unset): only https, and
 * only hosts that resolve to public addresses; everything else is 400 and nothing is
 * recorded. (Each address class is in test/unit/webhook-ssrf.test.ts.)
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { call } from '../support/http.ts';
import { startService, type RunningService } from '../support/service.ts';

let svc: RunningService;
let admin: string;
beforeAll(async () => {
  svc = await startService();
  admin = await svc.createKey(['--name', 'admin', '--admin']);
}, 60_000);
afterAll(() => svc?.stop());

it('refuses loopback, private, link-local and metadata destinations, names resolving to them, and http', async () => {
  for (const url of [
    `http://127.0.0.1:${svc.port}/api/keys`,
    'https://127.0.0.1/',
    'https://[::1]/',
    'https://[::ffff:7f00:1]/',
    'https://10.0.0.1/',
    'https://192.168.0.1/',
    'https://169.254.169.254/latest/meta-data/',
    'https://[fd00:ec2::254]/',
    'https://localhost/',
    'https://0x7f.1/',
  ]) {
    const r = await call(svc.url, 'POST', '/api/webhooks', { key: admin, body: { url, events: ['site.published'] } });
    expect(r.status, url).toBe(400);
    expect(r.body).toMatchObject({ code: 'invalid' });
    expect(r.body.error, url).toMatch(/^url: /);
  }
  expect((await call(svc.url, 'GET', '/api/webhooks', { key: admin })).body.webhooks).toEqual([]);
  expect((await call(svc.url, 'GET', '/api/events?type=WebhookCreated', { key: admin })).body.events).toEqual([]);
});

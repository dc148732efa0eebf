/**
 * Webhooks cannot be turned against the service's own network (spec §16, DESIGN "Trust
 * boundary"): the use cases and the sender with the outbound client's default policy.
 * Every address class is refused at creation (400, nothing recorded); a name that resolved
 * to a public address at creation and resolves to loopback at delivery (DNS rebinding) is
 * refused when delivering, and nothing is sent. No request leaves this machine: the
 * resolver is the test's, and every refusal happens before a connection.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhook, listWebhooks } from '../../app/webhooks/manage.ts';
import { sendDelivery } from '../../app/webhooks/send.ts';
import type { Identity } from '../../domain/auth.ts';
import { ValidationError } from '../../domain/errors.ts';
import { siteStream } from '../../domain/streams.ts';
import { createOutbound } from '../../host/outbound/client.ts';
import { openEmbeddedStores } from '../support/embedded-stores.ts';

const ADMIN: Identity = { principal: { kind: 'admin' }, actor: { kind: 'user', name: 'root' }, via: 'user', name: 'root' };
const { events, webhooks, projector, close } = openEmbeddedStores('webhook-ssrf-');
/** What `hooks.example` resolves to now: public at creation, loopback later (rebinding). */
let hooksExample = ['93.184.216.34'];
const resolved: string[] = [];
const outbound = createOutbound({
  allowPrivate: false,
  timeoutMs: 2_000,
  maxBytes: 1024,
  resolve: async (host) => {
    resolved.push(host);
    if (host === 'hooks.example') return hooksExample.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    if (host === 'localhost' || host === 'internal.example') return [{ address: '127.0.0.1', family: 4 }];
    if (host === 'metadata.example') return [{ address: '169.254.169.254', family: 4 }];
    if (host === 'mixed.example') return [{ address: '93.184.216.34', family: 4 }, { address: '10.0.0.5', family: 4 }];
    throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
  },
});
const deps = {
  events,
  now: () => new Date(),
  waitForProjection: async (stream: string, revision: number) => {
    await projector.catchUp();
    await projector.waitFor(stream, revision);
  },
  webhooks,
  webhookOutbound: outbound,
};

beforeAll(() => projector.catchUp());
afterAll(async () => {
  await close();
});

describe('webhook destinations', () => {
  const refused = [
    ['loopback', 'https://127.0.0.1/hook'],
    ['loopback, another spelling', 'https://2130706433/hook'],
    ['IPv6 loopback', 'https://[::1]/hook'],
    ['IPv4-mapped IPv6 loopback', 'https://[::ffff:127.0.0.1]/hook'],
    ['unspecified', 'https://0.0.0.0/hook'],
    ['private 10/8', 'https://10.1.2.3/hook'],
    ['private 172.16/12', 'https://172.20.0.1/hook'],
    ['private 192.168/16', 'https://192.168.1.10/hook'],
    ['link-local: the cloud metadata address', 'https://169.254.169.254/latest/meta-data/'],
    ['carrier-grade NAT (another metadata address)', 'https://100.100.100.200/hook'],
    ['IPv6 unique-local (AWS metadata)', 'https://[fd00:ec2::254]/hook'],
    ['IPv6 link-local', 'https://[fe80::1]/hook'],
    ['a name resolving to loopback', 'https://localhost/hook'],
    ['another name resolving to loopback', 'https://internal.example/hook'],
    ['a name resolving to the metadata address', 'https://metadata.example/hook'],
    ['a name with one private address among public ones', 'https://mixed.example/hook'],
    ['a name that does not resolve', 'https://nowhere.example/hook'],
    ['plain http', 'http://hooks.example/hook'],
  ] as const;
  for (const [what, url] of refused) {
    it(`refuses ${what} at creation with 400, recording nothing`, async () => {
      const attempt = createWebhook(deps, ADMIN, { url, events: ['site.published'] });
      await expect(attempt).rejects.toBeInstanceOf(ValidationError);
      await expect(attempt).rejects.toThrow(/^url: /);
      expect((await listWebhooks(deps, ADMIN)).webhooks).toEqual([]);
    });
  }

  it('checks the destination again when delivering: a name rebound to loopback fails the delivery, and nothing is sent', async () => {
    const hook = await createWebhook(deps, ADMIN, { url: 'https://hooks.example/in', events: ['site.published'] });
    expect(hook.secret).toMatch(/^whsec_/);
    // An event for it, as a publish would append it.
    await events.append(
      siteStream({ group: 'docs', slug: 'app' }),
      [
        {
          type: 'SitePublished',
          data: { siteId: 1, group: 'docs', slug: 'app', created: true, revision: { id: '20260101T000000.000000000Z', manifest: 'm', files: 1, size: 1 }, meta: { title: 'App', hidden: false } },
          meta: { actor: ADMIN.actor, at: new Date().toISOString() },
        },
      ],
      -1,
    );
    await projector.catchUp();
    const [head] = await webhooks.heads();
    expect(head?.webhookId).toBe(hook.id);
    hooksExample = ['127.0.0.1'];
    resolved.length = 0;
    const result = await sendDelivery({ webhooks, outbound, siteUrl: (p) => `https://${p}.example/`, now: () => new Date(), random: () => 0.5 }, head!);
    expect(result).toBe('retrying');
    expect(resolved).toEqual(['hooks.example']); // resolved again at delivery, not remembered from creation
    const after = (await webhooks.getDelivery(head!.id))!;
    expect(after).toMatchObject({ status: 'pending', attempts: 1 });
    expect(after.lastStatus).toBeUndefined(); // nothing answered: nothing was sent
    expect(after.lastError).toMatch(/hooks\.example resolves to 127\.0\.0\.1, a loopback address/);
  });
});

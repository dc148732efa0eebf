/**
 * Webhooks over HTTP (spec §16) on the real service, with a receiver on loopback
 * (SITES_WEBHOOK_ALLOW_PRIVATE=true, which also allows http:). Signatures are checked with
 * the Standard Webhooks library's own verifier, as a receiver would.
 */
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../support/http.ts';
import { publish } from '../support/publish.ts';
import { startService, type RunningService } from '../support/service.ts';
import { startReceiver, type Received } from '../support/webhook-receiver.ts';

let svc: RunningService;
let admin: string;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  svc = await startService({ env: { SITES_WEBHOOK_ALLOW_PRIVATE: 'true' } });
  admin = await svc.createKey(['--name', 'admin', '--admin']);
  receiver = await startReceiver();
}, 60_000);
afterAll(async () => {
  await receiver?.stop();
  await svc?.stop();
});

const create = (body: unknown, key = admin) => call(svc.url, 'POST', '/api/webhooks', { key, body });
const deliveries = async (id: string) => (await call(svc.url, 'GET', `/api/webhooks/${id}/deliveries`, { key: admin })).body.deliveries as any[];
const to = (path: string) => (r: Received) => r.path === path;
const payload = (r: Received) => JSON.parse(r.body) as { type: string; timestamp: string; data: any };

async function waitUntil<T>(what: string, fn: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('webhooks', () => {
  it('sends a signed delivery of a publish that the library verifies, with the secret shown once', async () => {
    const made = await create({ url: `${receiver.url}/signed`, events: ['site.published'], description: 'CI' });
    expect(made.status).toBe(201);
    expect(made.body.secret).toMatch(/^whsec_/);
    const { secret, ...hook } = made.body;
    const listed = await call(svc.url, 'GET', '/api/webhooks', { key: admin });
    expect(listed.body.webhooks).toContainEqual(hook);
    expect(JSON.stringify(listed.body)).not.toContain(secret);

    const published = await publish(svc.url, admin, { group: 'docs', slug: 'signed', title: 'Signed' }, { index: '<p>hi</p>' });
    expect(published.status).toBe(200);
    const [got] = await receiver.waitFor(1, 20_000, to('/signed'));
    const headers = got!.headers as Record<string, string>;
    // The library's verifier: signature over id, timestamp and the exact body; timestamp within its tolerance.
    const verified = new Webhook(secret).verify(got!.body, headers) as { type: string; data: any };
    expect(verified.type).toBe('site.published');
    expect(verified.data).toMatchObject({ site: 'docs/signed', url: svc.siteUrl('docs/signed'), revision: published.body.revision, created: true, title: 'Signed' });
    expect(verified.data.actor).toMatchObject({ kind: 'key', name: 'admin' });
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(got!.body, headers)).toThrow();
    expect(headers['content-type']).toBe('application/json');

    const listedDeliveries = await waitUntil('the delivery to be recorded', async () => {
      const d = await deliveries(hook.id);
      return d[0]?.status === 'succeeded' ? d : undefined;
    });
    expect(listedDeliveries).toHaveLength(1);
    expect(listedDeliveries[0]).toMatchObject({ id: headers['webhook-id'], type: 'site.published', status: 'succeeded', attempts: 1, last_status: 200, site: 'docs/signed' });
  });

  it('retries a receiver that fails twice with growing delays, then succeeds, with the same webhook-id every time', async () => {
    receiver.answer = (r, n) => (r.path === '/flaky' && receiver.received.filter(to('/flaky')).length <= 2 ? { status: 503, body: `busy ${n}` } : { status: 204 });
    const made = await create({ url: `${receiver.url}/flaky`, events: ['site.patched'] });
    expect(made.status).toBe(201);
    await publish(svc.url, admin, { group: 'docs', slug: 'flaky', title: 'Flaky' }, { index: '<p>1</p>' });
    expect((await call(svc.url, 'PATCH', '/ingest/sites/docs/flaky', { key: admin, body: { title: 'Flaky 2' } })).status).toBe(200);
    const after = await waitUntil('a failed attempt to be recorded', async () => {
      const d = await deliveries(made.body.id);
      return d[0]?.attempts === 1 ? d[0] : undefined;
    });
    expect(after).toMatchObject({ status: 'pending', attempts: 1, last_status: 503 });
    expect(after.last_error).toMatch(/^busy \d+$/); // what the receiver said
    expect(Date.parse(after.next_attempt_at) - Date.parse(after.last_attempt_at)).toBeGreaterThanOrEqual(1_500);
    const got = await receiver.waitFor(3, 30_000, to('/flaky'));
    expect(new Set(got.map((r) => r.headers['webhook-id'])).size).toBe(1);
    const gaps = [got[1]!.at - got[0]!.at, got[2]!.at - got[1]!.at];
    expect(gaps[0]).toBeGreaterThanOrEqual(1_500); // 2 s ± 20%
    expect(gaps[1]).toBeGreaterThan(gaps[0]!); // then 10 s ± 20%: growing
    const done = await waitUntil('the delivery to succeed', async () => {
      const d = await deliveries(made.body.id);
      return d[0]?.status === 'succeeded' ? d[0] : undefined;
    });
    expect(done).toMatchObject({ attempts: 3, last_status: 204 });
    expect(done.last_error).toBeUndefined();
    expect(payload(got[2]!)).toMatchObject({ type: 'site.patched', data: { site: 'docs/flaky', meta: { title: 'Flaky 2' } } });
  }, 60_000);

  it('sends only the subscribed types, site types only within the target, in log order', async () => {
    const docs = await create({ url: `${receiver.url}/docs`, events: ['site.published', 'site.unpublished'], target: 'docs' });
    const keys = await create({ url: `${receiver.url}/keys`, events: ['key.issued', 'key.revoked'], target: 'docs' });
    expect([docs.status, keys.status]).toEqual([201, 201]);
    for (const [group, slug] of [['docs', 'one'], ['other', 'two'], ['docs/deep', 'three'], ['docsx', 'four'], ['', 'docs']]) {
      expect((await publish(svc.url, admin, { group, slug, title: slug }, { index: '<p>x</p>' })).status).toBe(200);
    }
    expect((await call(svc.url, 'DELETE', '/ingest/sites/docs/one', { key: admin })).status).toBe(204);
    const issued = await call(svc.url, 'POST', '/api/keys', { key: admin, body: { name: 'ci', grants: [{ kind: 'group', target: 'other', permissions: ['publish'] }] } });
    expect(issued.status).toBe(201);
    const siteHooks = await receiver.waitFor(4, 20_000, to('/docs'));
    expect(siteHooks.map((r) => [payload(r).type, payload(r).data.site])).toEqual([
      ['site.published', 'docs/one'],
      ['site.published', 'docs/deep/three'],
      ['site.published', 'docs'],
      ['site.unpublished', 'docs/one'],
    ]);
    const keyHooks = await receiver.waitFor(1, 20_000, to('/keys'));
    expect(payload(keyHooks[0]!)).toMatchObject({ type: 'key.issued', data: { key: { id: issued.body.id, name: 'ci', admin: false } } });
    expect(keyHooks[0]!.body).not.toContain('tokenHash');
    await new Promise((r) => setTimeout(r, 500));
    expect(receiver.received.filter(to('/docs'))).toHaveLength(4);
    expect(receiver.received.filter(to('/keys'))).toHaveLength(1);
  });

  it('sends nothing more once a webhook is deleted, and lists it no more', async () => {
    const made = await create({ url: `${receiver.url}/gone`, events: ['site.published'] });
    await publish(svc.url, admin, { group: 'gone', slug: 'a', title: 'A' }, { index: '<p>a</p>' });
    await receiver.waitFor(1, 20_000, to('/gone'));
    expect((await call(svc.url, 'DELETE', `/api/webhooks/${made.body.id}`, { key: admin })).status).toBe(204);
    expect((await call(svc.url, 'GET', '/api/webhooks', { key: admin })).body.webhooks.map((w: any) => w.id)).not.toContain(made.body.id);
    await publish(svc.url, admin, { group: 'gone', slug: 'b', title: 'B' }, { index: '<p>b</p>' });
    await new Promise((r) => setTimeout(r, 1_000));
    expect(receiver.received.filter(to('/gone'))).toHaveLength(1);
    expect((await call(svc.url, 'DELETE', `/api/webhooks/${made.body.id}`, { key: admin })).status).toBe(404);
    expect((await call(svc.url, 'GET', `/api/webhooks/${made.body.id}/deliveries`, { key: admin })).status).toBe(404);
  });

  it('sends a delivery again on request (202), with its webhook-id', async () => {
    const made = await create({ url: `${receiver.url}/again`, events: ['site.published'] });
    await publish(svc.url, admin, { group: 'again', slug: 'a', title: 'A' }, { index: '<p>a</p>' });
    const [first] = await receiver.waitFor(1, 20_000, to('/again'));
    const [delivery] = await waitUntil('the delivery', async () => {
      const d = await deliveries(made.body.id);
      return d[0]?.status === 'succeeded' ? d : undefined;
    });
    const again = await call(svc.url, 'POST', `/api/webhooks/${made.body.id}/deliveries/${delivery.id}/redeliver`, { key: admin });
    expect(again.status).toBe(202);
    const got = await receiver.waitFor(2, 20_000, to('/again'));
    expect(got[1]!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    const done = await waitUntil('the second attempt', async () => {
      const d = await deliveries(made.body.id);
      return d[0]?.attempts === 2 && d[0].status === 'succeeded' ? d[0] : undefined;
    });
    expect(done.id).toBe(delivery.id);
    expect((await call(svc.url, 'POST', `/api/webhooks/${made.body.id}/deliveries/msg_nosuch/redeliver`, { key: admin })).status).toBe(404);
  });

  it('is for admins only, and refuses bad input with 400 and records nothing', async () => {
    const viewer = await svc.createKey(['--name', 'viewer', '--grant', 'docs:publish']);
    expect((await create({ url: `${receiver.url}/x`, events: ['site.published'] }, viewer)).status).toBe(403);
    expect((await call(svc.url, 'GET', '/api/webhooks', { key: viewer })).status).toBe(403);
    expect((await call(svc.url, 'GET', '/api/webhooks')).status).toBe(401);
    expect((await call(svc.url, 'GET', '/api/webhooks', { user: 'admin' })).status).toBe(200);
    const before = (await call(svc.url, 'GET', '/api/webhooks', { key: admin })).body.webhooks.length;
    for (const [body, message] of [
      [{ url: `${receiver.url}/x`, events: ['site.exploded'] }, /unknown event type "site.exploded"/],
      [{ url: `${receiver.url}/x`, events: [] }, /events/],
      [{ url: `${receiver.url}/x`, events: ['site.published'], target: 'Docs/' }, /target/],
      [{ url: 'ftp://example.com/', events: ['site.published'] }, /url/],
      [{ url: 'not a url', events: ['site.published'] }, /url/],
      [{ events: ['site.published'] }, /url is required/],
    ] as const) {
      const r = await create(body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.code).toBe('invalid');
      expect(r.body.error).toMatch(message);
    }
    expect((await call(svc.url, 'GET', '/api/webhooks', { key: admin })).body.webhooks.length).toBe(before);
  });
});

describe('webhooks: receivers that misbehave', () => {
  it('does not follow a redirect (to loopback here): the attempt fails with the 3xx and the target is never asked', async () => {
    const internal = await startReceiver();
    receiver.answer = (r) => (r.path === '/moved' ? { status: 302, headers: { location: `${internal.url}/admin` } } : { status: 200 });
    const made = await create({ url: `${receiver.url}/moved`, events: ['site.published'] });
    await publish(svc.url, admin, { group: 'moved', slug: 'a', title: 'A' }, { index: '<p>a</p>' });
    await receiver.waitFor(1, 20_000, to('/moved'));
    const d = await waitUntil('the failed attempt', async () => {
      const list = await deliveries(made.body.id);
      return list[0]?.attempts === 1 ? list[0] : undefined;
    });
    expect(d).toMatchObject({ status: 'pending', last_status: 302 });
    expect(d.last_error).toMatch(/redirects are not followed/);
    expect(internal.received).toHaveLength(0);
    await internal.stop();
    await call(svc.url, 'DELETE', `/api/webhooks/${made.body.id}`, { key: admin });
  });

  it('a receiver that never answers holds neither the other webhooks nor the projection', async () => {
    // Answers nothing until the test ends: its delivery waits for the 10 s bound.
    const slowServer = await import('node:http').then(({ createServer }) =>
      createServer(() => {
        /* never answers */
      }),
    );
    await new Promise<void>((r) => slowServer.listen(0, '127.0.0.1', () => r()));
    const slowUrl = `http://127.0.0.1:${(slowServer.address() as { port: number }).port}/hang`;
    const slow = await create({ url: slowUrl, events: ['site.published'] });
    const fast = await create({ url: `${receiver.url}/fast`, events: ['site.published'] });
    expect([slow.status, fast.status]).toEqual([201, 201]);
    const started = Date.now();
    for (const n of [1, 2, 3]) {
      const t0 = Date.now();
      expect((await publish(svc.url, admin, { group: 'busy', slug: `x${n}`, title: 'X' }, { index: '<p>x</p>' })).status).toBe(200);
      expect(Date.now() - t0).toBeLessThan(3_000); // read-your-writes: the projection is not waiting on anyone
    }
    const got = await receiver.waitFor(3, 5_000, to('/fast'));
    expect(got.at(-1)!.at - started).toBeLessThan(5_000);
    const [stuck] = await deliveries(slow.body.id);
    expect(stuck.attempts).toBe(0); // its first attempt is still waiting for an answer
    slowServer.closeAllConnections();
    slowServer.close();
    await call(svc.url, 'DELETE', `/api/webhooks/${slow.body.id}`, { key: admin });
    await call(svc.url, 'DELETE', `/api/webhooks/${fast.body.id}`, { key: admin });
  }, 30_000);
});

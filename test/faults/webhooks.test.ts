/**
 * Webhooks across crashes (spec §16): deliveries come from the event log and their state
 * lives in the delivery store, so a receiver that is down across a SIGKILL of the service
 * still gets everything, in log order, once it is back; a SIGKILL in the middle of a run of
 * deliveries loses none (a few may come twice, with the same webhook-id); and when the
 * instance that sends dies, another one sharing the stores takes over.
 */
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { call } from '../support/http.ts';
import { publish } from '../support/publish.ts';
import { startService, type RunningService } from '../support/service.ts';
import { startReceiver, type Received } from '../support/webhook-receiver.ts';

const ENV = { SITES_WEBHOOK_ALLOW_PRIVATE: 'true' };
const running: RunningService[] = [];
const receivers: Awaited<ReturnType<typeof startReceiver>>[] = [];
afterEach(async () => {
  for (const r of receivers.splice(0)) await r.stop();
  for (const s of running.splice(0)) await s.stop();
});

const sites = (got: readonly Received[]) => got.map((r) => (JSON.parse(r.body) as { data: { site: string } }).data.site);
/** First arrival of each webhook-id, in order: what a receiver that drops duplicates keeps. */
const firstOfEach = (got: readonly Received[]) => got.filter((r, i) => got.findIndex((o) => o.headers['webhook-id'] === r.headers['webhook-id']) === i);

async function setUp(answer?: Parameters<typeof startReceiver>[0]) {
  const receiver = await startReceiver(answer);
  receivers.push(receiver);
  const svc = await startService({ env: ENV });
  running.push(svc);
  const key = await svc.createKey(['--name', 'admin', '--admin']);
  const made = await call(svc.url, 'POST', '/api/webhooks', { key, body: { url: `${receiver.url}/in`, events: ['site.published'] } });
  expect(made.status).toBe(201);
  return { receiver, svc, key, secret: made.body.secret as string };
}

describe('webhooks across crashes', () => {
  it('delivers, in log order, what happened while the receiver was down across a SIGKILL of the service', async () => {
    const { receiver, svc, key, secret } = await setUp();
    await receiver.stop();
    for (const n of [1, 2, 3]) expect((await publish(svc.url, key, { group: 'down', slug: `s${n}`, title: `S${n}` }, { index: `<p>${n}</p>` })).status).toBe(200);
    // The first attempt fails (connection refused) and is rescheduled: that state is on disk.
    const hookId = (await call(svc.url, 'GET', '/api/webhooks', { key })).body.webhooks[0].id;
    for (let i = 0; ; i++) {
      const [latest] = (await call(svc.url, 'GET', `/api/webhooks/${hookId}/deliveries?limit=3`, { key })).body.deliveries.slice(-1);
      if (latest?.attempts >= 1) break;
      if (i > 200) throw new Error('no failed attempt was recorded');
      await new Promise((r) => setTimeout(r, 50));
    }
    await svc.kill();
    await receiver.start();
    await svc.restart();
    const got = await receiver.waitFor(3, 30_000);
    expect(sites(firstOfEach(got))).toEqual(['down/s1', 'down/s2', 'down/s3']);
    // The secret survived the crash: the signatures still verify.
    for (const r of got) expect(() => new Webhook(secret).verify(r.body, r.headers as Record<string, string>)).not.toThrow();
    // Outcomes are recorded write-behind (host/webhook-sender.ts: at the end of a lane's
    // batch), so the receiver can have the last request before its outcome is on disk.
    const deliveries = async () => (await call(svc.url, 'GET', `/api/webhooks/${hookId}/deliveries`, { key })).body.deliveries;
    let list = await deliveries();
    for (let i = 0; i < 100 && list.some((d: any) => d.status !== 'succeeded'); i++) {
      await new Promise((r) => setTimeout(r, 50));
      list = await deliveries();
    }
    expect(list.map((d: any) => d.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    expect(list.at(-1).attempts).toBeGreaterThanOrEqual(2);
  });

  it('loses nothing when the service is SIGKILLed in the middle of a run of deliveries', async () => {
    // A receiver that takes 300 ms a request, so the kill lands while deliveries are going out.
    const { receiver, svc, key } = await setUp(() => ({ status: 200, delayMs: 300 }));
    const count = 20;
    for (let n = 0; n < count; n++) await publish(svc.url, key, { group: 'run', slug: `s${n}`, title: `S${n}` }, { index: `<p>${n}</p>` });
    await receiver.waitFor(3, 20_000);
    await svc.kill();
    const before = receiver.received.length;
    expect(before).toBeLessThan(count);
    await svc.restart();
    await receiver.waitFor(count, 60_000, () => true);
    for (let i = 0; firstOfEach(receiver.received).length < count; i++) {
      if (i > 600) throw new Error(`only ${firstOfEach(receiver.received).length} of ${count} events arrived`);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(sites(firstOfEach(receiver.received))).toEqual(Array.from({ length: count }, (_, n) => `run/s${n}`));
    // At least once: a delivery whose answer was not recorded before the kill may come again, never out of order before its predecessors.
    expect(receiver.received.length - count).toBeLessThanOrEqual(2);
  });

  it('another instance sharing the stores takes over sending when the sending one dies', async () => {
    const { receiver, svc, key } = await setUp();
    const second = await startService({ env: ENV, dataDir: svc.dataDir });
    running.push(second);
    await receiver.stop();
    await publish(svc.url, key, { group: 'over', slug: 'a', title: 'A' }, { index: '<p>a</p>' });
    await publish(second.url, key, { group: 'over', slug: 'b', title: 'B' }, { index: '<p>b</p>' });
    // The first instance started first and holds the lease: it is the one that sends. Kill it.
    await svc.kill();
    await receiver.start();
    const got = await receiver.waitFor(2, 40_000);
    expect(sites(firstOfEach(got))).toEqual(['over/a', 'over/b']);
    await svc.restart(); // so the shared data dir is removed by its owner
  });
});

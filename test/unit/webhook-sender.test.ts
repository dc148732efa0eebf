/**
 * The sender's lanes (spec §16, issue 28): a lane builds and signs the next delivery and
 * does its bookkeeping while the one before is on its way, and must still send strictly one
 * at a time, in log order, across its batches of 64, and send nothing past a delivery that
 * failed. Real stores, the real outbound client, a real receiver on loopback.
 */
import { createServer, type Server } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createWebhook } from '../../app/webhooks/manage.ts';
import type { Identity } from '../../domain/auth.ts';
import { siteStream } from '../../domain/streams.ts';
import { createOutbound } from '../../host/outbound/client.ts';
import { startWebhookSender } from '../../host/webhook-sender.ts';
import { openEmbeddedStores } from '../support/embedded-stores.ts';

const ADMIN: Identity = { principal: { kind: 'admin' }, actor: { kind: 'user', name: 'root' }, via: 'user', name: 'root' };
const { events, webhooks, projector, close, depsFor } = openEmbeddedStores('webhook-sender-');
const outbound = createOutbound({ allowPrivate: true, timeoutMs: 5_000, maxBytes: 1024 });

/** The receiver: notes each delivery's title and whether another was in flight; the 100th (by arrival) fails. */
const FAILING = 100;
const received: { title: string; headers: Record<string, string>; body: string }[] = [];
let inFlight = 0;
let overlapped = 0;
let server: Server;
let port = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    inFlight++;
    if (inFlight > 1) overlapped++;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      received.push({ title: (JSON.parse(body) as { data: { title: string } }).data.title, headers: req.headers as Record<string, string>, body });
      // Answer a moment later, so a lane that sent ahead would be caught with two in flight.
      setTimeout(() => {
        inFlight--;
        res.writeHead(received.length === FAILING ? 503 : 204);
        res.end();
      }, 1);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as { port: number }).port;
  await projector.catchUp();
});
afterAll(async () => {
  server.close();
  await close();
});

it('sends one at a time in log order across its batches, signed, and nothing past a delivery that failed', async () => {
  const deps = depsFor(outbound);
  const hook = await createWebhook(deps, ADMIN, { url: `http://127.0.0.1:${port}/in`, events: ['site.published'] });
  const site = { group: 'docs', slug: 'app' };
  const publish = (i: number) => ({
    type: 'SitePublished' as const,
    data: { siteId: 1, group: 'docs', slug: 'app', created: i === 0, revision: { id: `20260101T000000.${String(i).padStart(9, '0')}Z`, manifest: 'm', files: 1, size: 1 }, meta: { title: `T${i}`, hidden: false } },
    meta: { actor: ADMIN.actor, at: new Date().toISOString() },
  });
  await events.append(siteStream(site), Array.from({ length: 150 }, (_, i) => publish(i)), -1);
  await projector.catchUp();

  const sender = startWebhookSender(
    { webhooks, outbound, siteUrl: (p) => `http://${p}.localhost/`, now: () => new Date(), random: () => 0.5 },
    { isLeader: () => true, pollMs: 50 },
  );
  try {
    const failed = async () => (await webhooks.listDeliveries(hook.id, 200)).find((d) => d.attempts > 0 && d.status === 'pending');
    for (let i = 0; i < 200 && !(await failed()); i++) await new Promise((r) => setTimeout(r, 25));
    await new Promise((r) => setTimeout(r, 300)); // anything sent past the failure would have arrived by now
  } finally {
    await sender.stop();
  }
  expect(overlapped).toBe(0);
  expect(received.map((r) => r.title)).toEqual(Array.from({ length: FAILING }, (_, i) => `T${i}`));
  const signer = new Webhook(hook.secret);
  for (const r of [received[0]!, received[64]!, received[99]!]) expect(() => signer.verify(r.body, r.headers)).not.toThrow();
  const deliveries = (await webhooks.listDeliveries(hook.id, 200)).reverse();
  expect(deliveries.slice(0, FAILING - 1).every((d) => d.status === 'succeeded' && d.attempts === 1)).toBe(true);
  expect(deliveries[FAILING - 1]).toMatchObject({ status: 'pending', attempts: 1, lastStatus: 503 });
  expect(deliveries.slice(FAILING).every((d) => d.status === 'pending' && d.attempts === 0)).toBe(true);
});

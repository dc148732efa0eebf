/**
 * The sender signs a lane's next delivery while the one before is on its way (spec §16,
 * issue 28). What it sends must still say when it was sent: a delivery signed ahead and
 * kept waiting past its second (the one before took long to answer) is signed again, so
 * its `webhook-timestamp` is never older than the answer it waited for. Real stores, the
 * real outbound client, a real receiver on loopback.
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
const { events, webhooks, projector, close, depsFor } = openEmbeddedStores('webhook-ahead-');
const outbound = createOutbound({ allowPrivate: true, timeoutMs: 5_000, maxBytes: 1024 });

/** What arrived, with when the receiver answered it; the second is answered only after 1.2 s. */
const received: { headers: Record<string, string>; body: string; answeredAt: number }[] = [];
let server: Server;
let port = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const entry = { headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString(), answeredAt: 0 };
      received.push(entry);
      setTimeout(
        () => {
          entry.answeredAt = Date.now();
          res.writeHead(204);
          res.end();
        },
        received.length === 2 ? 1_200 : 0,
      );
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

it('signs a delivery that waited past its second again: its timestamp is never older than the answer before it', async () => {
  const deps = depsFor(outbound);
  const hook = await createWebhook(deps, ADMIN, { url: `http://127.0.0.1:${port}/in`, events: ['site.published'] });
  const publish = (i: number) => ({
    type: 'SitePublished' as const,
    data: { siteId: 1, group: 'docs', slug: 'app', created: i === 0, revision: { id: `20260101T000000.${String(i).padStart(9, '0')}Z`, manifest: 'm', files: 1, size: 1 }, meta: { title: `T${i}`, hidden: false } },
    meta: { actor: ADMIN.actor, at: new Date().toISOString() },
  });
  await events.append(siteStream({ group: 'docs', slug: 'app' }), [publish(0), publish(1), publish(2)], -1);
  await projector.catchUp();

  const sender = startWebhookSender(
    { webhooks, outbound, siteUrl: (p) => `http://${p}.localhost/`, now: () => new Date(), random: () => 0.5 },
    { isLeader: () => true, pollMs: 50 },
  );
  try {
    for (let i = 0; i < 200 && !(received.length === 3 && received[2]!.answeredAt > 0); i++) await new Promise((r) => setTimeout(r, 25));
  } finally {
    await sender.stop();
  }
  expect(received.map((r) => (JSON.parse(r.body) as { data: { title: string } }).data.title)).toEqual(['T0', 'T1', 'T2']);
  const signer = new Webhook(hook.secret);
  for (const r of received) expect(() => signer.verify(r.body, r.headers)).not.toThrow();
  // The third was signed while the second was on its way, 1.2 s before it could go.
  for (const i of [1, 2]) expect(Number(received[i]!.headers['webhook-timestamp'])).toBeGreaterThanOrEqual(Math.floor(received[i - 1]!.answeredAt / 1000));
});

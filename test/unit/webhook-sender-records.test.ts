/**
 * What the sender keeps while it records outcomes behind its requests (spec §16, issue 28):
 * a lane records an answer only once the next request is written, so a run that ends must
 * still record every attempt it made, a lost write must mean a resend with the same
 * webhook-id (never a lost delivery), and a webhook whose delete was projected is sent
 * nothing more even though the lane had read on past it. Real stores, the real outbound
 * client, a real receiver on loopback.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, expect, it } from 'vitest';
import { createWebhook, deleteWebhook } from '../../app/webhooks/manage.ts';
import type { Identity } from '../../domain/auth.ts';
import { siteStream } from '../../domain/streams.ts';
import { createOutbound } from '../../host/outbound/client.ts';
import { startWebhookSender } from '../../host/webhook-sender.ts';
import type { Lanes } from '../../host/webhooks/lanes.ts';
import { workerLanes } from '../../host/webhooks/worker-lanes.ts';
import type { WebhookDeliveries } from '../../projections/webhooks.ts';
import { openEmbeddedStores } from '../support/embedded-stores.ts';

const ADMIN: Identity = { principal: { kind: 'admin' }, actor: { kind: 'user', name: 'root' }, via: 'user', name: 'root' };
const outbound = createOutbound({ allowPrivate: true, timeoutMs: 5_000, maxBytes: 1024 });
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

type Arrival = { title: string; id: string };
/** Where a sender's lanes run: on its own thread (over its store), or on a worker thread (over a connection of its own). */
type Where = 'thread' | 'worker';
const WHERE: Where[] = ['thread', 'worker'];

/** Fresh stores and a receiver; `answer` decides when each request is answered (204). */
async function setup(answer: (arrival: Arrival, index: number, res: ServerResponse) => void = (_a, _i, res) => void setTimeout(() => (res.writeHead(204), res.end()), 1)) {
  const { dir, events, webhooks, projector, close, depsFor } = openEmbeddedStores('webhook-records-');
  const received: Arrival[] = [];
  let inFlight = 0;
  let overlapped = 0;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (++inFlight > 1) overlapped++;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const arrival = { title: (JSON.parse(Buffer.concat(chunks).toString()) as { data: { title: string } }).data.title, id: String(req.headers['webhook-id']) };
      received.push(arrival);
      res.on('finish', () => inFlight--);
      answer(arrival, received.length - 1, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    await close();
  });
  await projector.catchUp();
  const deps = depsFor(outbound);
  const hook = await createWebhook(deps, ADMIN, { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/in`, events: ['site.published'] });
  const publish = (i: number) => ({
    type: 'SitePublished' as const,
    data: { siteId: 1, group: 'docs', slug: 'app', created: i === 0, revision: { id: `20260101T000000.${String(i).padStart(9, '0')}Z`, manifest: 'm', files: 1, size: 1 }, meta: { title: `T${i}`, hidden: false } },
    meta: { actor: ADMIN.actor, at: new Date().toISOString() },
  });
  const publishAll = async (n: number) => {
    await events.append(siteStream({ group: 'docs', slug: 'app' }), Array.from({ length: n }, (_, i) => publish(i)), -1);
    await projector.catchUp();
  };
  /** `lanes`: where the lanes run (the sender's own thread unless given). */
  const sender = (store: WebhookDeliveries = webhooks, onError?: (err: unknown) => void, lanes?: Lanes) => {
    const s = startWebhookSender(
      { webhooks: store, outbound, siteUrl: (p) => `http://${p}.localhost/`, now: () => new Date(), random: () => 0.5 },
      { isLeader: () => true, pollMs: 50, ...(onError ? { onError } : {}), ...(lanes ? { lanes } : {}) },
    );
    const off = projector.onCommitted(() => s.projected());
    return { stop: async () => (off(), await s.stop()) };
  };
  const workerOf = () => workerLanes({ store: { kind: 'sqlite', file: join(dir, 'webhooks.sqlite') }, scheme: 'http', baseDomain: 'localhost' }, () => 80);
  /** A sender whose lanes run where `where` says. */
  const senderOn = (where: Where, onError?: (err: unknown) => void) => sender(webhooks, onError, where === 'worker' ? workerOf() : undefined);
  return { dir, deps, hook, webhooks, received, overlapped: () => overlapped, publishAll, sender, senderOn, workerOf };
}

const until = async (what: () => boolean | Promise<boolean>) => {
  for (let i = 0; i < 400 && !(await what()); i++) await new Promise((r) => setTimeout(r, 10));
};
const titles = (n: number, from = 0) => Array.from({ length: n - from }, (_, i) => `T${from + i}`);

it.each(WHERE)('a run stopped mid-lane records every attempt it made, and only those; the next run goes on from there (lanes on the %s)', async (where) => {
  const t = await setup();
  await t.publishAll(100);
  const first = t.senderOn(where);
  await until(() => t.received.length >= 30);
  await first.stop();
  const sent = t.received.length;
  const byId = new Map((await t.webhooks.listDeliveries(t.hook.id, 200)).map((d) => [d.id, d]));
  // The last request's answer was awaited, and its outcome written with the rest.
  for (const r of t.received) expect(byId.get(r.id), r.title).toMatchObject({ status: 'succeeded', attempts: 1 });
  expect([...byId.values()].filter((d) => d.attempts > 0)).toHaveLength(sent);

  const second = t.senderOn(where);
  await until(() => t.received.length >= 100);
  await new Promise((r) => setTimeout(r, 100));
  await second.stop();
  expect(t.overlapped()).toBe(0);
  expect(t.received.map((r) => r.title)).toEqual(titles(100)); // nothing sent twice: every outcome was recorded
  expect((await t.webhooks.listDeliveries(t.hook.id, 200)).every((d) => d.status === 'succeeded' && d.attempts === 1)).toBe(true);
});

it('outcomes lost with a failed write (a crash) are sent again, with the same webhook-id: nothing is lost', async () => {
  const t = await setup();
  await t.publishAll(100);
  // The store's writes fail from the second one on, as a process dying there would leave it.
  let writes = 0;
  const dying: WebhookDeliveries = Object.create(t.webhooks, {
    recordAttempts: { value: async (attempts: Parameters<WebhookDeliveries['recordAttempts']>[0]) => (++writes >= 2 ? Promise.reject(new Error('disk gone')) : t.webhooks.recordAttempts(attempts)) },
  });
  let failed = false;
  const first = t.sender(dying, () => void (failed = true));
  await until(() => failed);
  await first.stop();
  const beforeRestart = t.received.length;
  expect(failed).toBe(true);

  const second = t.sender();
  await until(async () => (await t.webhooks.listDeliveries(t.hook.id, 200)).every((d) => d.status === 'succeeded'));
  await second.stop();
  expect(t.overlapped()).toBe(0);
  const ids = new Map<string, Set<string>>();
  for (const r of t.received) ids.set(r.title, (ids.get(r.title) ?? new Set()).add(r.id));
  expect([...ids.keys()].sort()).toEqual(titles(100).sort());
  for (const [title, seen] of ids) expect(seen.size, title).toBe(1); // a resend is the same message
  expect(t.received.length).toBeGreaterThan(100); // the lost outcomes were sent again
  // The second run starts at the first delivery with no outcome recorded and goes on in log order.
  const resumed = t.received.slice(beforeRestart).map((r) => r.title);
  expect(resumed).toEqual(titles(100, Number(resumed[0]!.slice(1))));
});

it.each(WHERE)('a webhook whose delete is projected while a delivery is out is sent nothing more, though its lane was read on (lanes on the %s)', async (where) => {
  let deleting: Promise<void> | undefined;
  let del!: () => Promise<void>;
  const t = await setup((_a, i, res) => {
    if (i !== 9) return void setTimeout(() => (res.writeHead(204), res.end()), 1);
    // The tenth is answered only once the delete is projected.
    deleting = del().then(() => void (res.writeHead(204), res.end()));
  });
  del = () => deleteWebhook(t.deps, ADMIN, { id: t.hook.id });
  await t.publishAll(40);
  const s = t.senderOn(where);
  await until(() => deleting !== undefined);
  await deleting;
  await new Promise((r) => setTimeout(r, 200)); // anything sent after the delete would have arrived by now
  await s.stop();
  expect(t.received.map((r) => r.title)).toEqual(titles(10));
});

it('a lane worker that dies mid-run fails its run; the sender starts another, which sends again what had no outcome written, with the same webhook-id', async () => {
  const t = await setup();
  await t.publishAll(100);
  const lanes = t.workerOf();
  const errors: unknown[] = [];
  const s = t.sender(t.webhooks, (err) => errors.push(err), lanes);
  await until(() => t.received.length >= 30);
  await lanes.close(); // the worker is terminated where it stands, its unwritten outcomes with it
  await until(async () => (await t.webhooks.listDeliveries(t.hook.id, 200)).every((d) => d.status === 'succeeded'));
  await s.stop();
  expect(errors.map(String)).toEqual([expect.stringContaining('the webhook lane worker exited')]);
  expect(t.overlapped()).toBe(0);
  const ids = new Map<string, Set<string>>();
  for (const r of t.received) ids.set(r.title, (ids.get(r.title) ?? new Set()).add(r.id));
  expect([...ids.keys()].sort()).toEqual(titles(100).sort());
  for (const [title, seen] of ids) expect(seen.size, title).toBe(1);
  // In log order throughout: the new run goes on from the first delivery with no outcome written.
  const restart = t.received.findIndex((r, i) => i > 0 && Number(r.title.slice(1)) <= Number(t.received[i - 1]!.title.slice(1)));
  expect(t.received.slice(0, restart === -1 ? undefined : restart).map((r) => r.title)).toEqual(titles(restart === -1 ? 100 : restart));
  if (restart !== -1) expect(t.received.slice(restart).map((r) => r.title)).toEqual(titles(100, Number(t.received[restart]!.title.slice(1))));
});

it('on the worker, a failed outcome write stops the run at once: nothing more goes out while outcomes cannot be written', async () => {
  const t = await setup();
  await t.publishAll(300);
  const errors: unknown[] = [];
  const s = t.sender(t.webhooks, (err) => errors.push(err), t.workerOf());
  await until(() => t.received.length >= 5);
  // From here every outcome's write fails, a real SQLite error in the worker's own connection, while its lane reads still work.
  const db = new Database(join(t.dir, 'webhooks.sqlite'));
  db.exec(`CREATE TRIGGER outcomes_fail BEFORE UPDATE ON deliveries BEGIN SELECT RAISE(ABORT, 'disk gone'); END`);
  db.close();
  const sentWhenFailing = t.received.length;
  await until(() => errors.length > 0);
  await s.stop();
  expect(errors.map(String)).toContainEqual(expect.stringContaining('disk gone'));
  // Past the failure: at most a write's worth of outcomes (64) and those on their way to the worker (16); what was built
  // ahead is not sent. A run that went on would have sent the whole lane (295 more) before its end said the writes had failed.
  expect(t.received.length - sentWhenFailing).toBeLessThan(150);
  expect(t.overlapped()).toBe(0);
});

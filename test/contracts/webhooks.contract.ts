/**
 * The contract every WebhookDeliveries adapter passes (projections/webhooks.ts): the
 * fan-out the projector writes, and the delivery state the sender and the API read and
 * change. Run by webhooks.test.ts against the embedded store always and MongoDB when
 * SITES_MONGO_URL is set.
 */
import { describe, expect, it } from 'vitest';
import type { Recorded } from '../../domain/events.ts';
import type { WebhookType } from '../../domain/webhook/names.ts';
import type { WebhookDeliveries } from '../../projections/webhooks.ts';
import { ALICE, subscriberLog } from './subscribers-log.ts';

export type WebhookFactory = () => Promise<{ store: WebhookDeliveries; another: () => Promise<WebhookDeliveries> }>;

async function feed(store: WebhookDeliveries, events: readonly Recorded[]): Promise<void> {
  const batch = await store.beginBatch();
  await batch.add(events);
  await batch.commit(events[events.length - 1]!.position);
}

const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;

function logWithHooks() {
  const log = subscriberLog();
  const created = (id: string, events: WebhookType[], target = '') =>
    log.add(`webhook-${id}`, { type: 'WebhookCreated', data: { id, url: `https://hooks.example/${id}`, events, target, secret: SECRET } }, ALICE);
  const deleted = (id: string) => log.add(`webhook-${id}`, { type: 'WebhookDeleted', data: { id } }, ALICE);
  return { log, created, deleted };
}

export function webhooksContract(name: string, factory: WebhookFactory): void {
  describe(`WebhookDeliveries contract: ${name}`, () => {
    it('fans each event out to the webhooks that want it, as they stood at that point of the log', async () => {
      const { store } = await factory();
      const { log, created, deleted } = logWithHooks();
      log.publish('docs/early'); // before any webhook: nobody hears of it
      created('wh_all', ['site.published', 'key.issued']);
      created('wh_docs', ['site.published', 'site.unpublished'], 'docs');
      log.publish('docs/app');
      log.publish('other/app');
      log.keyIssued(3);
      log.unpublish('docs/app');
      deleted('wh_all');
      log.publish('docs/late');
      await feed(store, log.events);
      expect(await store.checkpoint()).toBe(log.events.at(-1)!.position);
      expect((await store.listWebhooks()).map((w) => [w.id, w.target, w.secret])).toEqual([['wh_docs', 'docs', SECRET]]);
      expect(await store.getWebhook('wh_all')).toBeUndefined();
      const all = (await store.listDeliveries('wh_all', 100)).map((d) => [d.type, d.event.site ?? d.event.type]);
      expect(all).toEqual([
        ['key.issued', 'KeyIssued'],
        ['site.published', 'other/app'],
        ['site.published', 'docs/app'],
      ]);
      const docs = await store.listDeliveries('wh_docs', 100);
      expect(docs.map((d) => [d.type, d.event.site])).toEqual([
        ['site.published', 'docs/late'],
        ['site.unpublished', 'docs/app'],
        ['site.published', 'docs/app'],
      ]);
      expect(docs[0]).toMatchObject({ webhookId: 'wh_docs', status: 'pending', attempts: 0, createdAt: log.events.at(-1)!.meta.at });
      expect(docs[0]!.id).toMatch(/^msg_[A-Za-z0-9_-]{27}$/);
      expect(await store.getDelivery(docs[0]!.id)).toEqual(docs[0]);
      expect((await store.listDeliveries('wh_docs', 2)).map((d) => d.id)).toEqual(docs.slice(0, 2).map((d) => d.id));
      await store.close();
    });

    it('hands the sender each live webhook’s oldest pending delivery, and records attempts as a compare-and-set', async () => {
      const { store } = await factory();
      const { log, created, deleted } = logWithHooks();
      created('wh_a', ['site.published']);
      created('wh_b', ['site.published']);
      created('wh_gone', ['site.published']);
      log.publish('a/one');
      log.publish('a/two');
      deleted('wh_gone');
      await feed(store, log.events);
      const heads = await store.heads();
      expect(heads.map((h) => [h.webhookId, h.event.site]).sort()).toEqual([
        ['wh_a', 'a/one'],
        ['wh_b', 'a/one'],
      ]);
      const head = heads.find((h) => h.webhookId === 'wh_a')!;
      const failed = { status: 'pending' as const, attempts: 1, windowStart: '2026-01-02T00:00:00.000Z', lastAttemptAt: '2026-01-02T00:00:00.000Z', lastStatus: 503, lastError: 'answered 503', nextAttemptAt: '2026-01-02T00:00:02.000Z' };
      expect(await store.recordAttempt(head, failed)).toBe(true);
      // The same attempt recorded again (another instance that read the same delivery) is refused.
      expect(await store.recordAttempt(head, { ...failed, status: 'succeeded' })).toBe(false);
      const retrying = (await store.getDelivery(head.id))!;
      expect(retrying).toMatchObject(failed);
      expect((await store.heads()).find((h) => h.webhookId === 'wh_a')!.id).toBe(head.id); // still its lane's head
      expect(await store.recordAttempt(retrying, { status: 'succeeded', attempts: 2, windowStart: failed.windowStart, lastAttemptAt: '2026-01-02T00:00:03.000Z', lastStatus: 200 })).toBe(true);
      const done = (await store.getDelivery(head.id))!;
      expect(done).toMatchObject({ status: 'succeeded', attempts: 2, lastStatus: 200 });
      expect(done.lastError).toBeUndefined();
      expect(done.nextAttemptAt).toBeUndefined();
      expect((await store.heads()).find((h) => h.webhookId === 'wh_a')!.event.site).toBe('a/two');
      // A lane, in order; none for a deleted webhook.
      expect((await store.lane('wh_b', 10)).map((d) => d.event.site)).toEqual(['a/one', 'a/two']);
      expect((await store.lane('wh_b', 1)).map((d) => d.event.site)).toEqual(['a/one']);
      expect(await store.lane('wh_gone', 10)).toEqual([]);
      // Read on past a key: what was read before is left out (its outcome may not be written yet).
      const [firstOfB] = await store.lane('wh_b', 1);
      expect((await store.lane('wh_b', 10, firstOfB!.key)).map((d) => d.event.site)).toEqual(['a/two']);
      expect(await store.lane('wh_gone', 10, '')).toEqual([]);
      // Several outcomes in one write, each a compare-and-set of its own.
      const [one, two] = await store.lane('wh_b', 10);
      const ok = { status: 'succeeded' as const, attempts: 1, windowStart: failed.windowStart, lastAttemptAt: failed.lastAttemptAt, lastStatus: 204 };
      expect(await store.recordAttempts([{ before: one!, outcome: ok }, { before: two!, outcome: ok }, { before: one!, outcome: ok }])).toEqual([true, true, false]);
      expect(await store.lane('wh_b', 10)).toEqual([]);
      expect((await store.heads()).map((h) => h.webhookId)).toEqual(['wh_a']);
      await store.close();
    });

    it('sends a delivery again: pending, due now, with a new window; attempts kept', async () => {
      const { store } = await factory();
      const { log, created } = logWithHooks();
      created('wh_a', ['site.published']);
      log.publish('a/one');
      log.publish('a/two');
      await feed(store, log.events);
      const [first] = await store.heads();
      await store.recordAttempt(first!, { status: 'failed', attempts: 9, windowStart: '2026-01-01T00:00:00.000Z', lastAttemptAt: '2026-01-02T00:00:00.000Z', lastError: 'timeout' });
      expect((await store.heads())[0]!.event.site).toBe('a/two');
      expect(await store.redeliver(first!.id)).toBe(true);
      const again = (await store.getDelivery(first!.id))!;
      expect(again).toMatchObject({ status: 'pending', attempts: 9, lastError: 'timeout' });
      expect(again.nextAttemptAt).toBeUndefined();
      expect(again.windowStart).toBeUndefined();
      // Back at the head of its lane: log order per webhook.
      expect((await store.heads())[0]!.id).toBe(first!.id);
      expect(await store.redeliver('msg_nosuch')).toBe(false);
      await store.close();
    });

    it('fans out once however often events come, and refuses a batch whose checkpoint moved', async () => {
      const { store, another } = await factory();
      const { log, created } = logWithHooks();
      created('wh_a', ['site.published']);
      log.publish('a/one');
      await feed(store, log.events);
      const second = await another();
      const a = await store.beginBatch();
      const b = await second.beginBatch();
      log.publish('a/two');
      const fresh = log.events.slice(-1);
      await a.add(fresh);
      await b.add(fresh);
      await a.commit(fresh[0]!.position);
      await expect(b.commit(fresh[0]!.position)).rejects.toThrow(/checkpoint moved/);
      const replay = await store.beginBatch();
      await replay.add(log.events); // from the start: webhook events are skipped by revision, deliveries by id
      expect((await store.listDeliveries('wh_a', 10)).map((d) => d.event.site)).toEqual(['a/two', 'a/one']);
      expect(await store.listWebhooks()).toHaveLength(1);
      await second.close();
      await store.close();
    });
  });
}

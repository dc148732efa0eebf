import { MongoClient, MongoServerError, type AnyBulkWriteOperation, type Collection, type Filter } from 'mongodb';
import type { Recorded } from '../../domain/events.ts';
import { fanOut, redelivered, withOutcome, type DeliveryRecord, type WebhookDeliveries, type WebhookDoc } from '../../projections/webhooks.ts';
import { databaseName } from '../readmodel/mongo.ts';

type WebhookDocument = { _id: string; deleted: boolean; doc: WebhookDoc };
/** `_id` is the delivery id, so fanning an event out twice inserts it once. */
type DeliveryDocument = { _id: string; webhook: string; key: string; status: string; attempts: number; nextAttemptAt?: string; doc: DeliveryRecord };
type CheckpointDocument = { _id: string; position: string; version: number };

const CHECKPOINT_ID = 'webhooks';
const DUPLICATE_KEY = 11000;

/**
 * The MongoDB delivery store, in the read model's database: `webhooks`, `webhook_deliveries`
 * and a `checkpoints` document (`_id: "webhooks"`). Writes are idempotent (subscriptions
 * guarded by their stream revision, deliveries inserted once by id) and the checkpoint is
 * a compare-and-set, so a crash between them, or two projectors, change nothing twice.
 * An attempt's outcome is a compare-and-set on the fields the sender read.
 */
export async function openMongoWebhookDeliveries(url: string): Promise<WebhookDeliveries> {
  const client = new MongoClient(url, { ignoreUndefined: true, writeConcern: { w: 'majority' }, appName: 'sites-webhooks' });
  await client.connect();
  try {
    const db = client.db(databaseName(url));
    const deliveries = db.collection<DeliveryDocument>('webhook_deliveries');
    await deliveries.createIndexes([
      { key: { webhook: 1, status: 1, key: 1 }, name: 'deliveries_lane' },
      { key: { webhook: 1, key: -1 }, name: 'deliveries_recent' },
    ]);
    return mongoDeliveries(client, db.collection<WebhookDocument>('webhooks'), deliveries, db.collection<CheckpointDocument>('checkpoints'));
  } catch (err) {
    await client.close();
    throw err;
  }
}

function mongoDeliveries(
  client: MongoClient,
  webhooks: Collection<WebhookDocument>,
  deliveries: Collection<DeliveryDocument>,
  checkpoints: Collection<CheckpointDocument>,
): WebhookDeliveries {
  const store = (d: DeliveryRecord) => ({ status: d.status, attempts: d.attempts, nextAttemptAt: d.nextAttemptAt, doc: d });
  return {
    async beginBatch() {
      const before = await checkpoints.findOne({ _id: CHECKPOINT_ID });
      const registry = new Map((await webhooks.find({}).toArray()).map((w) => [w._id, w.doc]));
      return {
        from: before?.position,
        streams: 0,
        async add(events: readonly Recorded[]) {
          const { webhooks: changed, deliveries: fresh } = fanOut(events, registry);
          for (const w of changed) {
            // Guarded by the stream revision: a replayed or older event never rolls a webhook back.
            await webhooks.updateOne({ _id: w.id, 'doc.revision': { $lt: w.revision } }, { $set: { deleted: w.deleted, doc: w } }).then(async (r) => {
              if (r.matchedCount === 0) {
                try {
                  await webhooks.insertOne({ _id: w.id, deleted: w.deleted, doc: w });
                } catch (err) {
                  if (!(err instanceof MongoServerError && err.code === DUPLICATE_KEY)) throw err;
                }
              }
            });
          }
          if (fresh.length === 0) return;
          const ops: AnyBulkWriteOperation<DeliveryDocument>[] = fresh.map((d) => ({
            updateOne: { filter: { _id: d.id }, update: { $setOnInsert: { webhook: d.webhookId, key: d.key, ...store(d) } }, upsert: true },
          }));
          await deliveries.bulkWrite(ops, { ordered: false });
        },
        async commit(checkpoint: string) {
          if (before) {
            const moved = await checkpoints.updateOne({ _id: CHECKPOINT_ID, version: before.version }, { $set: { position: checkpoint }, $inc: { version: 1 } });
            if (moved.matchedCount === 1) return;
          } else {
            try {
              await checkpoints.insertOne({ _id: CHECKPOINT_ID, position: checkpoint, version: 1 });
              return;
            } catch (err) {
              if (!(err instanceof MongoServerError && err.code === DUPLICATE_KEY)) throw err;
            }
          }
          throw new Error('webhook checkpoint moved by another projector while this batch was built; the batch was not committed');
        },
      };
    },
    async checkpoint() {
      return (await checkpoints.findOne({ _id: CHECKPOINT_ID }))?.position;
    },
    async listWebhooks() {
      return (await webhooks.find({ deleted: false }).sort({ 'doc.createdAt': 1, _id: 1 }).toArray()).map((w) => w.doc);
    },
    async getWebhook(id) {
      return (await webhooks.findOne({ _id: id, deleted: false }))?.doc;
    },
    async listDeliveries(webhookId, limit) {
      return (await deliveries.find({ webhook: webhookId }).sort({ key: -1 }).limit(limit).toArray()).map((d) => d.doc);
    },
    async getDelivery(id) {
      return (await deliveries.findOne({ _id: id }))?.doc;
    },
    async heads() {
      const live = await webhooks.find({ deleted: false }, { projection: { _id: 1 } }).toArray();
      const found = await Promise.all(live.map((w) => deliveries.find({ webhook: w._id, status: 'pending' }).sort({ key: 1 }).limit(1).next()));
      return found.filter((d): d is NonNullable<typeof d> => d !== null).map((d) => d.doc);
    },
    async lane(webhookId, limit, after) {
      if (!(await webhooks.findOne({ _id: webhookId, deleted: false }, { projection: { _id: 1 } }))) return [];
      const past = after === undefined ? {} : { key: { $gt: after } };
      return (await deliveries.find({ webhook: webhookId, status: 'pending', ...past }).sort({ key: 1 }).limit(limit).toArray()).map((d) => d.doc);
    },
    async recordAttempts(attempts) {
      // One round trip per attempt still; each is the same compare-and-set as recordAttempt.
      const out: boolean[] = [];
      for (const a of attempts) out.push(await this.recordAttempt(a.before, a.outcome));
      return out;
    },
    async recordAttempt(before, outcome) {
      const after = withOutcome(before, outcome);
      const filter: Filter<DeliveryDocument> = {
        _id: before.id,
        attempts: before.attempts,
        status: before.status,
        nextAttemptAt: before.nextAttemptAt === undefined ? { $exists: false } : before.nextAttemptAt,
      };
      const unset = after.nextAttemptAt === undefined ? { $unset: { nextAttemptAt: '' as const } } : {};
      const { nextAttemptAt: _n, ...set } = store(after);
      const r = await deliveries.updateOne(filter, { $set: after.nextAttemptAt === undefined ? set : store(after), ...unset });
      return r.matchedCount === 1;
    },
    async redeliver(id) {
      const found = await deliveries.findOne({ _id: id });
      if (!found) return false;
      const again = redelivered(found.doc);
      const { nextAttemptAt: _n, ...set } = store(again);
      await deliveries.updateOne({ _id: id }, { $set: set, $unset: { nextAttemptAt: '' } });
      return true;
    },
    async close() {
      await client.close();
    },
  };
}

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { BlobStore, EventStore } from '../domain/ports.ts';
import type { ActivityStore } from '../projections/activity.ts';
import type { ReadModel } from '../projections/read-model.ts';
import type { WebhookDeliveries } from '../projections/webhooks.ts';
import { openSqliteActivityStore } from './activity/sqlite.ts';
import { openFolderBlobStore } from './blobs/folder.ts';
import type { Config } from './config.ts';
import { openSqliteEventStore } from './eventstore/sqlite.ts';
import { openSqliteReadModel } from './readmodel/sqlite.ts';
import { openSqliteWebhookDeliveries } from './webhooks/sqlite.ts';

export type Stack = {
  readonly events: EventStore;
  readonly readModel: ReadModel;
  readonly blobs: BlobStore;
  /** The activity projection (spec §16): with the read model, on the same engine. */
  readonly activity: ActivityStore;
  /** Webhook subscriptions, their outbox and delivery state: with the read model, on the same engine. */
  readonly webhooks: WebhookDeliveries;
  /** Which adapter serves each port, for the start-up log line. */
  readonly describe: string;
  close(): Promise<void>;
};

/**
 * Opens one adapter per port: the production one when its URL is configured, else the
 * embedded one under the data dir. Each port is chosen on its own, so mixed setups work.
 */
export async function openStack(config: Config): Promise<Stack> {
  mkdirSync(config.dataDir, { recursive: true });
  const events = config.eventStoreUrl
    ? (await import('./eventstore/esdb.ts')).openEsdbEventStore(config.eventStoreUrl)
    : openSqliteEventStore(join(config.dataDir, 'events.sqlite'));
  const readModel = config.mongoUrl
    ? await (await import('./readmodel/mongo.ts')).openMongoReadModel(config.mongoUrl)
    : openSqliteReadModel(join(config.dataDir, 'readmodel.sqlite'));
  // Their own SQLite files: the projector writes them in step with the read model, and the
  // webhook sender records attempts at any time, without waiting on the read model's lock.
  const activity = config.mongoUrl
    ? await (await import('./activity/mongo.ts')).openMongoActivityStore(config.mongoUrl)
    : openSqliteActivityStore(join(config.dataDir, 'activity.sqlite'));
  const webhooks = config.mongoUrl
    ? await (await import('./webhooks/mongo.ts')).openMongoWebhookDeliveries(config.mongoUrl)
    : openSqliteWebhookDeliveries(join(config.dataDir, 'webhooks.sqlite'));
  const blobs = config.s3
    ? await (await import('./blobs/s3.ts')).openS3BlobStore({ ...config.s3, tmpDir: join(config.dataDir, 'tmp', 's3-spool') })
    : openFolderBlobStore(join(config.dataDir, 'blobs'));
  const describe = [
    `events=${config.eventStoreUrl ? 'eventstoredb' : 'sqlite'}`,
    `readmodel=${config.mongoUrl ? 'mongodb' : 'sqlite'}`,
    `files=${config.s3 ? `s3:${config.s3.bucket}` : 'folder'}`,
  ].join(' ');
  return {
    events,
    readModel,
    blobs,
    activity,
    webhooks,
    describe,
    async close() {
      await Promise.allSettled([events.close(), readModel.close(), blobs.close(), activity.close(), webhooks.close()]);
    },
  };
}

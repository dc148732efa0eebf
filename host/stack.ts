import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { BlobStore, EventStore } from '../domain/ports.ts';
import type { ReadModel } from '../projections/read-model.ts';
import { openFolderBlobStore } from './blobs/folder.ts';
import type { Config } from './config.ts';
import { esdbPositionKey } from './eventstore/esdb-position.ts';
import { openSqliteEventStore, sqlitePositionKey } from './eventstore/sqlite.ts';
import { openSqliteReadModel } from './readmodel/sqlite.ts';

export type Stack = {
  readonly events: EventStore;
  readonly readModel: ReadModel;
  readonly blobs: BlobStore;
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
  // MongoDB orders the positions of the log it projects to tell committed documents (see streamRevision).
  const positionKey = config.eventStoreUrl ? esdbPositionKey : sqlitePositionKey;
  const readModel = config.mongoUrl
    ? await (await import('./readmodel/mongo.ts')).openMongoReadModel(config.mongoUrl, { positionKey })
    : openSqliteReadModel(join(config.dataDir, 'readmodel.sqlite'));
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
    describe,
    async close() {
      await Promise.allSettled([events.close(), readModel.close(), blobs.close()]);
    },
  };
}

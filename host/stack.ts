import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { BlobStore, EventStore } from '../domain/ports.ts';
import type { ActivityStore } from '../projections/activity.ts';
import type { ReadModel } from '../projections/read-model.ts';
import type { WebhookDeliveries } from '../projections/webhooks.ts';
import { openSqliteActivityStore } from './activity/sqlite.ts';
import { openFolderBlobStore } from './blobs/folder.ts';
import { CliError, systemReason } from './cli/failure.ts';
import { ConfigError, type Config } from './config.ts';
import { openSqliteEventStore } from './eventstore/sqlite.ts';
import { createLogger, type Logger } from './log.ts';
import { openSqliteReadModel } from './readmodel/sqlite.ts';
import type { WebhookStoreLocation } from './webhooks/lane-messages.ts';
import { openSqliteWebhookDeliveries } from './webhooks/sqlite.ts';

export type Stack = {
  readonly events: EventStore;
  readonly readModel: ReadModel;
  readonly blobs: BlobStore;
  /** The activity projection (spec §16): with the read model, on the same engine. */
  readonly activity: ActivityStore;
  /** Webhook subscriptions, their outbox and delivery state: with the read model, on the same engine. */
  readonly webhooks: WebhookDeliveries;
  /** Where `webhooks` is kept, for what opens a connection of its own to it (the sender's lane worker). */
  readonly webhooksAt: WebhookStoreLocation;
  /** Which adapter serves each port, for the start-up log line. */
  readonly describe: string;
  close(): Promise<void>;
};

/** A store server did not become ready within `SITES_STORE_WAIT`, or refused the service: start-up stops with this one line. */
export class StoreUnavailableError extends CliError {}

/**
 * Opens one adapter per port: the production one when its URL is configured, else the
 * embedded one under the data dir. Each port is chosen on its own, so mixed setups work.
 *
 * A store server may not be ready yet when the service starts (a container that just
 * started, a replica set still electing, MinIO initialising its disks): each one is waited
 * for, all at once, with a log line while it is awaited and once it answers, for at most
 * `config.storeWaitMs`; then start-up stops with one line naming the store. An answer that
 * waiting will not change (credentials refused, a malformed URL) stops it at once.
 */
export async function openStack(config: Config, log: Logger = createLogger(config)): Promise<Stack> {
  mkdirSync(config.dataDir, { recursive: true });
  const wait = { timeoutMs: config.storeWaitMs, log };
  const opening = [
    (async (): Promise<EventStore> => {
      if (!config.eventStoreUrl) return openSqliteEventStore(join(config.dataDir, 'events.sqlite'));
      const url = config.eventStoreUrl;
      const esdb = await import('./eventstore/esdb.ts');
      const store = {
        name: 'the event store',
        where: `EventStoreDB at ${redact(url)}`,
        refusal: 'the user needs read access to $all and read/write on its streams (README: EventStoreDB with security on)',
      };
      await whenReady(store, (ms) => esdb.probeEsdb(url, ms), esdb.esdbRefused, wait);
      return esdb.openEsdbEventStore(url);
    })(),
    (async (): Promise<ReadModel> => {
      if (!config.mongoUrl) return openSqliteReadModel(join(config.dataDir, 'readmodel.sqlite'));
      const url = config.mongoUrl;
      const mongo = await import('./readmodel/mongo.ts');
      const store = { name: 'the read model', where: `MongoDB at ${redact(url)}` };
      await whenReady(store, (ms) => mongo.probeMongo(url, ms), mongo.mongoRefused, wait);
      return whenReady(store, () => mongo.openMongoReadModel(url), mongo.mongoRefused, { ...wait, quiet: true });
    })(),
    (async (): Promise<BlobStore> => {
      if (!config.s3) return openFolderBlobStore(join(config.dataDir, 'blobs'));
      const s3 = config.s3;
      const { openS3BlobStore, s3Refused } = await import('./blobs/s3.ts');
      const store = { name: 'the file store', where: `S3 at ${redact(s3.endpoint)}, bucket ${s3.bucket}` };
      return whenReady(store, () => openS3BlobStore({ ...s3, tmpDir: join(config.dataDir, 'tmp', 's3-spool') }), s3Refused, wait);
    })(),
  ] as const;
  const [events, readModel, blobs] = await Promise.allSettled(opening);
  if (events.status === 'rejected' || readModel.status === 'rejected' || blobs.status === 'rejected') {
    const opened = [events, readModel, blobs].flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    await Promise.allSettled(opened.map((store) => store.close()));
    throw [events, readModel, blobs].flatMap((r) => (r.status === 'rejected' ? [r.reason] : []))[0];
  }
  // The log's other subscribers, on the read model's engine (MongoDB answered above). Embedded,
  // each has its own SQLite file: the projector writes them in step with the read model, and
  // the webhook sender records attempts at any time without waiting on the read model's lock.
  let activity: ActivityStore;
  let webhooks: WebhookDeliveries;
  const webhooksAt: WebhookStoreLocation = config.mongoUrl ? { kind: 'mongo', url: config.mongoUrl } : { kind: 'sqlite', file: join(config.dataDir, 'webhooks.sqlite') };
  try {
    activity = config.mongoUrl
      ? await (await import('./activity/mongo.ts')).openMongoActivityStore(config.mongoUrl)
      : openSqliteActivityStore(join(config.dataDir, 'activity.sqlite'));
    webhooks = webhooksAt.kind === 'mongo' ? await (await import('./webhooks/mongo.ts')).openMongoWebhookDeliveries(webhooksAt.url) : openSqliteWebhookDeliveries(webhooksAt.file);
  } catch (err) {
    await Promise.allSettled([events.value.close(), readModel.value.close(), blobs.value.close()]);
    throw err;
  }
  const describe = [
    `events=${config.eventStoreUrl ? 'eventstoredb' : 'sqlite'}`,
    `readmodel=${config.mongoUrl ? 'mongodb' : 'sqlite'}`,
    `files=${config.s3 ? `s3:${config.s3.bucket}` : 'folder'}`,
  ].join(' ');
  return {
    events: events.value,
    readModel: readModel.value,
    blobs: blobs.value,
    activity,
    webhooks,
    webhooksAt,
    describe,
    async close() {
      await Promise.allSettled([events.value.close(), readModel.value.close(), blobs.value.close(), activity.close(), webhooks.close()]);
    },
  };
}

type StoreName = { readonly name: string; readonly where: string; /** What to do about a refusal. */ readonly refusal?: string };
type Wait = { readonly timeoutMs: number; readonly log: Logger; readonly quiet?: boolean };

/** Time for the first try (a store that is up answers well within it), and the longest of later ones. */
const FIRST_TRY_MS = 2_000;
const TRY_MS = 10_000;
/** How often "still waiting" is said. */
const SAY_EVERY_MS = 10_000;

/**
 * Runs `attempt` until it succeeds, waiting between tries (250 ms doubling to 2 s), for at
 * most `timeoutMs`; each try gets the time it may take. Logs when it starts waiting, every
 * ten seconds while it does, and when the store answers after a wait.
 */
async function whenReady<T>(store: StoreName, attempt: (tryMs: number) => Promise<T>, refused: (err: unknown) => boolean, wait: Wait): Promise<T> {
  const started = Date.now();
  const deadline = started + wait.timeoutMs;
  let pause = 250;
  let said = 0;
  for (let tries = 1; ; tries++) {
    const left = deadline - Date.now();
    try {
      const value = await withinTime(attempt(Math.max(1_000, Math.min(tries === 1 ? FIRST_TRY_MS : TRY_MS, left))), Math.max(1_000, left));
      const after = ((Date.now() - started) / 1000).toFixed(1);
      if (tries > 1) wait.log.info(`${store.name} is ready after ${after} s: ${store.where}`);
      else if (!wait.quiet) wait.log.debug(`${store.name} is ready: ${store.where}`);
      return value;
    } catch (err) {
      const reason = reasonOf(err);
      if (refused(err) || err instanceof ConfigError) {
        throw new StoreUnavailableError(`${store.name} (${store.where}) refused the service: ${reason}${store.refusal && refused(err) ? `; ${store.refusal}` : ''}`);
      }
      if (Date.now() >= deadline) {
        throw new StoreUnavailableError(
          `${store.name} (${store.where}) did not answer within ${seconds(wait.timeoutMs)}: ${reason} (is it running and reachable? SITES_STORE_WAIT sets how long to wait)`,
        );
      }
      if (tries === 1 || Date.now() - said >= SAY_EVERY_MS) {
        wait.log.warn(`${tries === 1 ? 'waiting for' : 'still waiting for'} ${store.name}: ${store.where}: ${reason}`);
        said = Date.now();
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(pause, Math.max(0, deadline - Date.now()))));
      pause = Math.min(pause * 2, 2_000);
    }
  }
}

/** Rejects when `promise` has not settled within `ms` (the try itself is left to fail on its own). */
function withinTime<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${seconds(ms)}`)), ms);
  });
  promise.catch(() => undefined); // a try that fails after its time is up is of no interest
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

const seconds = (ms: number): string => `${Math.round(ms / 100) / 10} s`;

/** One line of why a try failed: the system's words for a refused connection, else the error's own message. */
function reasonOf(err: unknown): string {
  const system = systemReason(err) ?? systemReason((err as { cause?: unknown } | null)?.cause);
  const message = err instanceof Error ? err.message || err.name : String(err);
  return (system && !message.includes(system) ? `${system} (${message})` : message).replace(/\s*\n\s*/g, ' ').slice(0, 300);
}

/** A URL without its password, for logs and error lines. */
export function redact(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)([^@/?#]*)@/i, (_, scheme: string, userinfo: string) => `${scheme}${userinfo.split(':')[0]}:***@`);
}

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteActivityStore } from '../../host/activity/sqlite.ts';
import { openSqliteEventStore } from '../../host/eventstore/sqlite.ts';
import { Projector } from '../../host/projector.ts';
import { openSqliteReadModel } from '../../host/readmodel/sqlite.ts';
import { openSqliteWebhookDeliveries } from '../../host/webhooks/sqlite.ts';
import type { OutboundHttp } from '../../domain/ports/outbound-http.ts';

/**
 * The embedded stores (SQLite log, read model, activity and webhook deliveries) in a fresh
 * folder named from `prefix`, and a projector that feeds the activity and delivery stores as
 * the service's does (not started);
 * `depsFor` the webhook use cases' and the sender's dependencies over them (a command waits
 * until the projector has caught up); `close` closes the stores and removes the folder.
 */
export function openEmbeddedStores(prefix: string) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const events = openSqliteEventStore(join(dir, 'events.sqlite'));
  const readModel = openSqliteReadModel(join(dir, 'readmodel.sqlite'));
  const webhooks = openSqliteWebhookDeliveries(join(dir, 'webhooks.sqlite'));
  const activity = openSqliteActivityStore(join(dir, 'activity.sqlite'));
  const projector = new Projector(events, readModel, {
    holder: 'test',
    sides: [
      { name: 'activity', beginBatch: () => activity.beginBatch() },
      { name: 'webhooks', beginBatch: () => webhooks.beginBatch() },
    ],
  });
  const depsFor = (webhookOutbound: OutboundHttp) => ({ events, now: () => new Date(), waitForProjection: async () => void (await projector.catchUp()), webhooks, webhookOutbound });
  const close = async () => {
    await Promise.allSettled([events.close(), readModel.close(), webhooks.close(), activity.close()]);
    rmSync(dir, { recursive: true, force: true });
  };
  return { dir, events, readModel, webhooks, activity, projector, depsFor, close };
}

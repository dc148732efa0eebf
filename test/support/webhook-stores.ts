import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteActivityStore } from '../../host/activity/sqlite.ts';
import { openSqliteEventStore } from '../../host/eventstore/sqlite.ts';
import { Projector } from '../../host/projector.ts';
import { openSqliteReadModel } from '../../host/readmodel/sqlite.ts';
import { openSqliteWebhookDeliveries } from '../../host/webhooks/sqlite.ts';

/**
 * The embedded stores a webhook test needs, in a fresh folder named from `prefix`, and a
 * projector that feeds the activity and delivery stores as the service's does (not started).
 */
export function openWebhookStores(prefix: string) {
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
  return { dir, events, readModel, webhooks, activity, projector };
}

import Database from 'better-sqlite3';
import type { Recorded } from '../../domain/events.ts';
import { fanOut, redelivered, unmoved, withOutcome, type AttemptRecord, type DeliveryRecord, type WebhookDeliveries, type WebhookDoc } from '../../projections/webhooks.ts';

/**
 * `webhooks`: the subscriptions as the fan-out left them. `deliveries`: one row per event
 * and webhook; `lane` (webhook, status, key) finds each webhook's next delivery with one
 * seek, `recent` lists its deliveries newest first.
 */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS webhooks (
  id       TEXT PRIMARY KEY,
  deleted  INTEGER NOT NULL,
  doc      TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS deliveries (
  id       TEXT PRIMARY KEY,
  webhook  TEXT NOT NULL,
  key      TEXT NOT NULL,
  status   TEXT NOT NULL,
  attempts INTEGER NOT NULL,
  doc      TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS deliveries_lane   ON deliveries (webhook, status, key);
CREATE INDEX IF NOT EXISTS deliveries_recent ON deliveries (webhook, key);
CREATE TABLE IF NOT EXISTS webhook_checkpoint (
  id       INTEGER PRIMARY KEY CHECK (id = 1),
  position TEXT NOT NULL
);
`;

type DocRow = { doc: string };

/** The embedded delivery store: its own SQLite file (WAL), so recording attempts never waits on the read model. */
export function openSqliteWebhookDeliveries(file: string): WebhookDeliveries {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 10000');
  db.pragma('synchronous = NORMAL');
  db.exec(SCHEMA);

  const getCheckpoint = db.prepare<[], { position: string }>('SELECT position FROM webhook_checkpoint WHERE id = 1');
  const putCheckpoint = db.prepare<[string]>('INSERT INTO webhook_checkpoint (id, position) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET position = excluded.position');
  const allWebhooks = db.prepare<[], DocRow>('SELECT doc FROM webhooks');
  const putWebhook = db.prepare<[string, number, string]>('INSERT INTO webhooks (id, deleted, doc) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET deleted = excluded.deleted, doc = excluded.doc');
  const liveWebhooks = db.prepare<[], DocRow>('SELECT doc FROM webhooks WHERE deleted = 0');
  const oneWebhook = db.prepare<[string], DocRow>('SELECT doc FROM webhooks WHERE id = ? AND deleted = 0');
  const putDelivery = db.prepare<[string, string, string, string, number, string]>('INSERT OR IGNORE INTO deliveries (id, webhook, key, status, attempts, doc) VALUES (?, ?, ?, ?, ?, ?)');
  const recent = db.prepare<[string, number], DocRow>('SELECT doc FROM deliveries WHERE webhook = ? ORDER BY key DESC LIMIT ?');
  const oneDelivery = db.prepare<[string], DocRow>('SELECT doc FROM deliveries WHERE id = ?');
  const heads = db.prepare<[], DocRow>(
    `SELECT d.doc FROM webhooks w JOIN deliveries d
       ON d.id = (SELECT id FROM deliveries WHERE webhook = w.id AND status = 'pending' ORDER BY key LIMIT 1)
     WHERE w.deleted = 0`,
  );
  const setDoc = db.prepare<[string, number, string, string]>('UPDATE deliveries SET status = ?, attempts = ?, doc = ? WHERE id = ?');

  const write = db.transaction((webhooks: readonly WebhookDoc[], deliveries: readonly DeliveryRecord[]) => {
    for (const w of webhooks) putWebhook.run(w.id, w.deleted ? 1 : 0, JSON.stringify(w));
    for (const d of deliveries) putDelivery.run(d.id, d.webhookId, d.key, d.status, d.attempts, JSON.stringify(d));
  });
  const commitTx = db.transaction((from: string | undefined, checkpoint: string) => {
    if (getCheckpoint.get()?.position !== from) throw new Error('webhook checkpoint moved by another projector while this batch was built; the batch was not committed');
    putCheckpoint.run(checkpoint);
  });
  const redeliverTx = db.transaction((id: string): boolean => {
    const row = oneDelivery.get(id);
    if (!row) return false;
    const again = redelivered(JSON.parse(row.doc) as DeliveryRecord);
    setDoc.run(again.status, again.attempts, JSON.stringify(again), id);
    return true;
  });
  const recordTx = db.transaction((before: DeliveryRecord, outcome: AttemptRecord): boolean => {
    const row = oneDelivery.get(before.id);
    if (!row || !unmoved(JSON.parse(row.doc) as DeliveryRecord, before)) return false;
    const after = withOutcome(before, outcome);
    setDoc.run(after.status, after.attempts, JSON.stringify(after), before.id);
    return true;
  });

  const parse = <T>(rows: readonly DocRow[]): T[] => rows.map((r) => JSON.parse(r.doc) as T);

  return {
    async beginBatch() {
      const from = getCheckpoint.get()?.position;
      const registry = new Map(parse<WebhookDoc>(allWebhooks.all()).map((w) => [w.id, w]));
      return {
        from,
        streams: 0,
        async add(events: readonly Recorded[]) {
          const { webhooks, deliveries } = fanOut(events, registry);
          if (webhooks.length > 0 || deliveries.length > 0) write.immediate(webhooks, deliveries);
        },
        async commit(checkpoint: string) {
          commitTx.immediate(from, checkpoint);
        },
      };
    },
    async checkpoint() {
      return getCheckpoint.get()?.position;
    },
    async listWebhooks() {
      return parse<WebhookDoc>(liveWebhooks.all()).sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : 1));
    },
    async getWebhook(id) {
      const row = oneWebhook.get(id);
      return row ? (JSON.parse(row.doc) as WebhookDoc) : undefined;
    },
    async listDeliveries(webhookId, limit) {
      return parse<DeliveryRecord>(recent.all(webhookId, limit));
    },
    async getDelivery(id) {
      const row = oneDelivery.get(id);
      return row ? (JSON.parse(row.doc) as DeliveryRecord) : undefined;
    },
    async heads() {
      return parse<DeliveryRecord>(heads.all());
    },
    async recordAttempt(before, outcome) {
      return recordTx.immediate(before, outcome);
    },
    async redeliver(id) {
      return redeliverTx.immediate(id);
    },
    async close() {
      db.close();
    },
  };
}

import Database from 'better-sqlite3';
import type { Recorded } from '../../domain/events.ts';
import { fanOut, redelivered, withOutcome, type AttemptRecord, type DeliveryRecord, type WebhookDeliveries, type WebhookDoc } from '../../projections/webhooks.ts';

/**
 * `webhooks`: the subscriptions as the fan-out left them. `deliveries`: one row per event
 * and webhook; `lane` (the pending ones by webhook and key) finds each webhook's next
 * delivery with one seek, `recent` lists its deliveries newest first.
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
  -- NULL: due now. With status and attempts, what an attempt's compare-and-set checks.
  due      TEXT,
  doc      TEXT NOT NULL
);
-- Pending ones only: a delivery that is done leaves it, and the lanes' heads are one seek each.
CREATE INDEX IF NOT EXISTS deliveries_lane   ON deliveries (webhook, key) WHERE status = 'pending';
CREATE INDEX IF NOT EXISTS deliveries_recent ON deliveries (webhook, key);
CREATE TABLE IF NOT EXISTS webhook_checkpoint (
  id       INTEGER PRIMARY KEY CHECK (id = 1),
  position TEXT NOT NULL
);
`;

type DocRow = { doc: string };

/**
 * The sender's reads: each webhook's oldest pending deliveries. INDEXED BY the pending-only
 * index: both indexes lead with (webhook, key), and SQLite took the one of every delivery,
 * stepping over all a webhook's delivered rows on each read (slower with every delivery).
 */
export const HEADS_SQL = `SELECT d.doc FROM webhooks w JOIN deliveries d
    ON d.id = (SELECT id FROM deliveries INDEXED BY deliveries_lane WHERE webhook = w.id AND status = 'pending' ORDER BY key LIMIT 1)
  WHERE w.deleted = 0`;
export const LANE_SQL = `SELECT d.doc FROM deliveries d INDEXED BY deliveries_lane JOIN webhooks w ON w.id = d.webhook AND w.deleted = 0
  WHERE d.webhook = ? AND d.status = 'pending' AND d.key > ? ORDER BY d.key LIMIT ?`;

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
  const putDelivery = db.prepare<[string, string, string, string, number, string]>('INSERT OR IGNORE INTO deliveries (id, webhook, key, status, attempts, due, doc) VALUES (?, ?, ?, ?, ?, NULL, ?)');
  const recent = db.prepare<[string, number], DocRow>('SELECT doc FROM deliveries WHERE webhook = ? ORDER BY key DESC LIMIT ?');
  const oneDelivery = db.prepare<[string], DocRow>('SELECT doc FROM deliveries WHERE id = ?');
  const heads = db.prepare<[], DocRow>(HEADS_SQL);
  const lane = db.prepare<[string, string, number], DocRow>(LANE_SQL);
  const setDoc = db.prepare<[string, number, string | null, string, string]>('UPDATE deliveries SET status = ?, attempts = ?, due = ?, doc = ? WHERE id = ?');
  // One statement, no read: the row changes only if it is still what the attempt started from.
  const casDoc = db.prepare<[string, number, string | null, string, string, number, string, string | null]>(
    'UPDATE deliveries SET status = ?, attempts = ?, due = ?, doc = ? WHERE id = ? AND attempts = ? AND status = ? AND due IS ?',
  );

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
    setDoc.run(again.status, again.attempts, again.nextAttemptAt ?? null, JSON.stringify(again), id);
    return true;
  });

  const cas = (before: DeliveryRecord, outcome: AttemptRecord): boolean => {
    const after = withOutcome(before, outcome);
    return casDoc.run(after.status, after.attempts, after.nextAttemptAt ?? null, JSON.stringify(after), before.id, before.attempts, before.status, before.nextAttemptAt ?? null).changes === 1;
  };
  const recordAll = db.transaction((attempts: readonly { readonly before: DeliveryRecord; readonly outcome: AttemptRecord }[]) => attempts.map((a) => cas(a.before, a.outcome)));

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
    async lane(webhookId, limit, after = '') {
      return parse<DeliveryRecord>(lane.all(webhookId, after, limit));
    },
    async recordAttempt(before, outcome) {
      return cas(before, outcome);
    },
    async recordAttempts(attempts) {
      return recordAll.immediate(attempts);
    },
    async redeliver(id) {
      return redeliverTx.immediate(id);
    },
    async close() {
      db.close();
    },
  };
}

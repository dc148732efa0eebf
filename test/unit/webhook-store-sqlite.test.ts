/**
 * The embedded delivery store's reads for the sender (issue 28): a lane's next deliveries
 * and every webhook's head are seeks into the pending-only index, so their cost does not
 * grow with the deliveries a webhook has had. SQLite's own plan for the statements the
 * store runs, on a store it made.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { HEADS_SQL, LANE_SQL, openSqliteWebhookDeliveries } from '../../host/webhooks/sqlite.ts';

const dir = mkdtempSync(join(tmpdir(), 'webhook-store-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('reads lanes and heads through the pending-only index, never stepping over delivered rows', async () => {
  const file = join(dir, 'webhooks.sqlite');
  await openSqliteWebhookDeliveries(file).close();
  const db = new Database(file, { readonly: true });
  try {
    const plan = (sql: string, ...args: unknown[]) => db.prepare<unknown[], { detail: string }>(`EXPLAIN QUERY PLAN ${sql}`).all(...args).map((r) => r.detail);
    for (const steps of [plan(LANE_SQL, 'wh_a', '', 64), plan(HEADS_SQL)]) {
      const onDeliveries = steps.filter((s) => /\b(?:SEARCH|SCAN) (?:d|deliveries)\b/.test(s));
      // A head's row itself is then fetched by its id.
      const byId = (s: string) => s.includes('USING INDEX sqlite_autoindex_deliveries_1 (id=?)');
      // The lane seeks past the key it was read to (key>?), still on the pending-only index.
      expect(onDeliveries.filter((s) => !byId(s))).toEqual([expect.stringMatching(/USING INDEX deliveries_lane \(webhook=\?(?: AND key>\?)?\)$/)]);
    }
  } finally {
    db.close();
  }
});

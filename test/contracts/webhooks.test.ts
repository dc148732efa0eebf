import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { openSqliteWebhookDeliveries } from '../../host/webhooks/sqlite.ts';
import { webhooksContract } from './webhooks.contract.ts';

const dir = mkdtempSync(join(tmpdir(), 'webhooks-contract-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

webhooksContract('sqlite', async () => {
  const file = join(dir, `w-${++n}.db`);
  return { store: openSqliteWebhookDeliveries(file), another: async () => openSqliteWebhookDeliveries(file) };
});

const mongoUrl = process.env.SITES_MONGO_URL;
if (mongoUrl) {
  const { withDatabase } = await import('./readmodel-mongo.ts');
  const { openMongoWebhookDeliveries } = await import('../../host/webhooks/mongo.ts');
  const created: string[] = [];
  afterAll(async () => {
    const { MongoClient } = await import('mongodb');
    const client = await new MongoClient(mongoUrl).connect();
    try {
      for (const name of created) await client.db(name).dropDatabase();
    } finally {
      await client.close();
    }
  });
  webhooksContract('mongodb', async () => {
    const name = `sites_webhooks_${process.pid}_${Date.now().toString(36)}_${++n}`;
    created.push(name);
    const url = withDatabase(mongoUrl, name);
    return { store: await openMongoWebhookDeliveries(url), another: () => openMongoWebhookDeliveries(url) };
  });
} else {
  console.log('skipped: no SITES_MONGO_URL');
  describe.skip('WebhookDeliveries contract: mongodb (skipped: no SITES_MONGO_URL)', () => {
    it('runs the contract suite against SITES_MONGO_URL', () => {});
  });
}

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { openSqliteActivityStore } from '../../host/activity/sqlite.ts';
import { activityContract } from './activity.contract.ts';

const dir = mkdtempSync(join(tmpdir(), 'activity-contract-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

activityContract('sqlite', async () => {
  const file = join(dir, `a-${++n}.db`);
  return { store: openSqliteActivityStore(file), another: async () => openSqliteActivityStore(file) };
});

const mongoUrl = process.env.SITES_MONGO_URL;
if (mongoUrl) {
  const { withDatabase } = await import('./readmodel-mongo.ts');
  const { openMongoActivityStore } = await import('../../host/activity/mongo.ts');
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
  activityContract('mongodb', async () => {
    const name = `sites_activity_${process.pid}_${Date.now().toString(36)}_${++n}`;
    created.push(name);
    const url = withDatabase(mongoUrl, name);
    return { store: await openMongoActivityStore(url), another: () => openMongoActivityStore(url) };
  });
} else {
  console.log('skipped: no SITES_MONGO_URL');
  describe.skip('ActivityStore contract: mongodb (skipped: no SITES_MONGO_URL)', () => {
    it('runs the contract suite against SITES_MONGO_URL', () => {});
  });
}

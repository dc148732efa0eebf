import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, it } from 'vitest';

type Opened<S> = { store: S; another: () => Promise<S> };

/**
 * Runs a store's contract suite against its SQLite adapter (a file per test) and, when
 * SITES_MONGO_URL is set, its MongoDB adapter (a database per test, dropped afterwards);
 * without the URL it prints one `skipped:` line.
 */
export function runOnSqliteAndMongo<S>(o: {
  readonly port: string;
  readonly name: string;
  readonly contract: (adapter: string, open: () => Promise<Opened<S>>) => void;
  readonly sqlite: (file: string) => S;
  readonly mongo: () => Promise<(url: string) => Promise<S>>;
}): void {
  const dir = mkdtempSync(join(tmpdir(), `${o.name}-contract-`));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let n = 0;
  o.contract('sqlite', async () => {
    const file = join(dir, `${o.name}-${++n}.db`);
    return { store: o.sqlite(file), another: async () => o.sqlite(file) };
  });

  const mongoUrl = process.env.SITES_MONGO_URL;
  if (!mongoUrl) {
    console.log('skipped: no SITES_MONGO_URL');
    describe.skip(`${o.port} contract: mongodb (skipped: no SITES_MONGO_URL)`, () => {
      it('runs the contract suite against SITES_MONGO_URL', () => {});
    });
    return;
  }
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
  o.contract('mongodb', async () => {
    const { withDatabase } = await import('./readmodel-mongo.ts');
    const open = await o.mongo();
    const name = `sites_${o.name}_${process.pid}_${Date.now().toString(36)}_${++n}`;
    created.push(name);
    const url = withDatabase(mongoUrl, name);
    return { store: await open(url), another: () => open(url) };
  });
}

/**
 * Wiring of the contract suite to a MongoDB server (`SITES_MONGO_URL`): every store the
 * suite opens is a database of its own, dropped when the file's tests end.
 */
import { MongoClient } from 'mongodb';
import { openMongoReadModel } from '../../host/readmodel/mongo.ts';
import type { ReadModelFactory } from './readmodel-contract.ts';

/** `url` with its database replaced by `name`, query string kept. */
export function withDatabase(url: string, name: string): string {
  const m = /^(mongodb(?:\+srv)?:\/\/[^/?]*)(?:\/[^?]*)?(\?.*)?$/.exec(url);
  if (!m) throw new Error(`SITES_MONGO_URL is not a MongoDB URL: ${url}`);
  return `${m[1]}/${name}${m[2] ?? ''}`;
}

export function mongoContract(url: string): { factory: ReadModelFactory; dropAll: () => Promise<void> } {
  const created: string[] = [];
  let n = 0;
  return {
    factory: async () => {
      const name = `sites_contract_${process.pid}_${Date.now().toString(36)}_${++n}`;
      created.push(name);
      const dbUrl = withDatabase(url, name);
      const open = () => openMongoReadModel(dbUrl);
      return { model: await open(), another: open };
    },
    dropAll: async () => {
      const client = await new MongoClient(url).connect();
      try {
        for (const name of created.splice(0)) await client.db(name).dropDatabase();
      } finally {
        await client.close();
      }
    },
  };
}

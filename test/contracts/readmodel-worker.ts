/**
 * A separate process sharing one SQLite read-model file with others (spawned by
 * readmodel-processes.test.ts): it applies the same event log in small batches while
 * listing, as a second service instance or a `sites project` process would, then says
 * how many leases it won.
 */
import { openSqliteReadModel } from '../../host/readmodel/sqlite.ts';
import { sharedLog } from './readmodel-processes.fixture.ts';

const [file, holder] = process.argv.slice(2) as [string, string];
const model = openSqliteReadModel(file);
const events = sharedLog().events;
let wins = 0;
for (let i = 0; i < events.length; i += 7) {
  const batch = events.slice(i, i + 7);
  await model.apply(batch, batch[batch.length - 1]!.position);
  const list = await model.listSites({ sort: 'date', includeHidden: true, limit: 10, offset: 0 });
  if (list.count !== list.all.length) throw new Error('count and listing disagree');
  if (await model.tryLease('race', holder, 60_000)) wins++;
}
await model.close();
process.stdout.write(`${JSON.stringify({ holder, wins })}\n`);

// A separate process appending to one stream of a shared SQLite log, the way two service
// instances (or the service and the CLI) do: read, append at the revision read, retry on
// a lost race. Prints how many races it lost. Args: file stream label count.
import { StreamConflictError } from '../../../domain/errors.ts';
import { openSqliteEventStore } from '../../../host/eventstore/sqlite.ts';
import { used } from './fixtures.ts';

const [file, stream, label, count] = process.argv.slice(2);
const store = openSqliteEventStore(file);
let conflicts = 0;
for (let i = 0; i < Number(count); i++) {
  for (;;) {
    const { revision } = await store.readStream(stream);
    try {
      // Two events per append: readers must never see them apart.
      await store.append(stream, [used(Number(label) * 1000 + i * 2), used(Number(label) * 1000 + i * 2 + 1)], revision);
      break;
    } catch (err) {
      if (!(err instanceof StreamConflictError)) throw err;
      conflicts++;
    }
  }
}
await store.close();
console.log(JSON.stringify({ conflicts }));

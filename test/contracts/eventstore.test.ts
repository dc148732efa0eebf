import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe } from 'vitest';
import { openEsdbEventStore } from '../../host/eventstore/esdb.ts';
import { openSqliteEventStore } from '../../host/eventstore/sqlite.ts';
import { describeEventStoreContract } from './eventstore/contract.ts';

// The embedded log: a fresh file per test, opened as many times as a test asks.
describeEventStoreContract('SQLite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sites-eventstore-'));
  const file = join(dir, 'events.sqlite');
  return {
    open: async () => openSqliteEventStore(file),
    empty: true,
    dispose: async () => rmSync(dir, { recursive: true, force: true }),
  };
});

// EventStoreDB cannot run on the build machines: the suite runs when a server is given.
const esdbUrl = process.env.SITES_EVENTSTORE_URL;
if (esdbUrl) {
  describeEventStoreContract(`EventStoreDB (${esdbUrl})`, async () => ({
    open: async () => openEsdbEventStore(esdbUrl),
    empty: false,
    dispose: async () => {},
  }));
} else {
  console.log('skipped: no SITES_EVENTSTORE_URL');
  describe.skip('EventStore contract: EventStoreDB (skipped: no SITES_EVENTSTORE_URL)', () => {});
}

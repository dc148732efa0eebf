import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { StreamConflictError } from '../../domain/errors.ts';
import type { EventMeta, Recorded } from '../../domain/events.ts';
import type { EventStore, EventToAppend, ExpectedRevision } from '../../domain/ports.ts';
import { pageWithoutSplit } from './page.ts';
import { checkAppend, checkLimit } from './validate.ts';
import { createWaiters } from './waiters.ts';

/** How often a waiting store looks at the file for appends made by other processes. */
const POLL_MS = 50;
/** How long a writer waits for another process's write lock before failing. */
const BUSY_TIMEOUT_MS = 10_000;

// One row per event. `position` is the global order (AUTOINCREMENT: never reused, even
// after the last row is deleted by hand); `commit_no` groups the events of one append so
// `readAll` can avoid splitting it. UNIQUE(stream, revision) backs the revision check.
const SCHEMA = `
CREATE TABLE IF NOT EXISTS events (
  position  INTEGER PRIMARY KEY AUTOINCREMENT,
  commit_no INTEGER NOT NULL,
  stream    TEXT    NOT NULL,
  revision  INTEGER NOT NULL,
  type      TEXT    NOT NULL,
  data      TEXT    NOT NULL,
  meta      TEXT    NOT NULL,
  UNIQUE (stream, revision)
);
CREATE INDEX IF NOT EXISTS events_commit ON events (commit_no);
`;

type Row = {
  position: number;
  commit_no: number;
  stream: string;
  revision: number;
  type: string;
  data: string;
  meta: string;
};

const toRecorded = (row: Row): Recorded =>
  ({
    type: row.type,
    data: JSON.parse(row.data) as unknown,
    stream: row.stream,
    revision: row.revision,
    position: String(row.position),
    meta: JSON.parse(row.meta) as EventMeta,
  }) as Recorded;

/** Positions are decimal strings of the row's global position; anything else is a caller bug. */
function parsePosition(position: string | undefined): number {
  if (position === undefined) return 0;
  if (!/^\d{1,15}$/.test(position)) throw new TypeError(`not an event-log position: ${JSON.stringify(position)}`);
  return Number(position);
}

/**
 * The embedded event store: an append-only table in one SQLite file (WAL mode), shared
 * safely by several processes (the service, the CLI, a second service instance). Appends
 * run in `BEGIN IMMEDIATE` transactions, so the expected-revision check and the insert
 * see the same state whatever the other writers do.
 */
export function openSqliteEventStore(file: string): EventStore {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  db.pragma('journal_mode = WAL');
  // The log is the source of truth: a committed append must survive a power cut.
  db.pragma('synchronous = FULL');
  db.exec(SCHEMA);

  const headOf = db.prepare<[string], { revision: number | null; position: number | null }>(
    'SELECT max(revision) AS revision, max(position) AS position FROM events WHERE stream = ?',
  );
  const nextCommit = db.prepare<[], { n: number }>('SELECT coalesce(max(commit_no), 0) + 1 AS n FROM events');
  const insert = db.prepare<[number, string, number, string, string, string]>(
    'INSERT INTO events (commit_no, stream, revision, type, data, meta) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const streamRows = db.prepare<[string], Row>('SELECT * FROM events WHERE stream = ? ORDER BY revision');
  const allRows = db.prepare<[number, number], Row>('SELECT * FROM events WHERE position > ? ORDER BY position LIMIT ?');
  const maxPosition = db.prepare<[], { p: number | null }>('SELECT max(position) AS p FROM events');

  const appendTx = db.transaction((stream: string, events: readonly EventToAppend[], expected: number) => {
    const head = headOf.get(stream);
    const actual = head?.revision ?? -1;
    if (actual !== expected) throw new StreamConflictError(stream, expected, actual);
    if (events.length === 0) return { revision: actual, position: head?.position ?? 0 };
    const commit = nextCommit.get()!.n;
    let position = 0;
    events.forEach((event, i) => {
      const info = insert.run(commit, stream, expected + 1 + i, event.type, JSON.stringify(event.data), JSON.stringify(event.meta));
      position = Number(info.lastInsertRowid);
    });
    return { revision: expected + events.length, position };
  });

  const waiters = createWaiters<number>((head, after) => head > (after ?? 0));
  let poller: NodeJS.Timeout | undefined;
  let closed = false;

  // Another process's commit changes `data_version`; only then is the head worth reading.
  let dataVersion = -1;
  const poll = (): void => {
    if (closed) return;
    if (waiters.size === 0) {
      clearInterval(poller);
      poller = undefined;
      return;
    }
    const version = db.pragma('data_version', { simple: true }) as number;
    if (version === dataVersion) return;
    dataVersion = version;
    waiters.notify(maxPosition.get()?.p ?? 0);
  };

  const assertOpen = (): void => {
    if (closed) throw new Error('event store is closed');
  };

  return {
    async readStream(stream) {
      assertOpen();
      const events = streamRows.all(stream).map(toRecorded);
      return { events, revision: events.length === 0 ? -1 : events[events.length - 1].revision };
    },

    async streamRevision(stream) {
      assertOpen();
      return headOf.get(stream)?.revision ?? -1;
    },

    async append(stream: string, events: readonly EventToAppend[], expected: ExpectedRevision) {
      assertOpen();
      checkAppend(stream, events, expected);
      let result: { revision: number; position: number };
      try {
        result = appendTx.immediate(stream, events, expected);
      } catch (err) {
        // Cannot happen under BEGIN IMMEDIATE, but a duplicate revision is a lost race whatever the cause.
        if ((err as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') throw new StreamConflictError(stream, expected, undefined);
        throw err;
      }
      if (events.length > 0) waiters.notify(result.position);
      return { revision: result.revision, position: String(result.position) };
    },

    async readAll(after, limit) {
      assertOpen();
      checkLimit(limit);
      // One row of look-ahead tells whether the last append of the page goes on past the limit.
      const rows = allRows.all(parsePosition(after), limit + 1);
      return pageWithoutSplit(rows, limit, (row) => row.commit_no).map(toRecorded);
    },

    async waitForEvents(after, timeoutMs) {
      assertOpen();
      const from = parsePosition(after);
      // Read the version before the head: a commit landing in between then shows up at the next poll.
      const version = db.pragma('data_version', { simple: true }) as number;
      if ((maxPosition.get()?.p ?? 0) > from) return;
      const parked = waiters.wait(from, timeoutMs);
      if (!poller) {
        dataVersion = version;
        poller = setInterval(poll, POLL_MS);
        poller.unref();
      }
      return parked;
    },

    async close() {
      if (closed) return;
      closed = true;
      clearInterval(poller);
      waiters.releaseAll();
      db.close();
    },
  };
}

import Database from 'better-sqlite3';
import type { Recorded } from '../../domain/events.ts';
import { activityRows, type Activity, type ActivityFilter, type ActivityPage, type ActivityRow, type ActivityStore } from '../../projections/activity.ts';
import { mergePages, timeBounds, type TimeBounds } from './query-plan.ts';

/**
 * One row per event; `key` orders them as the log does (projections/positions.ts). Each
 * filter has an index ending in `key`, so a page is a range read of one index in key
 * order, stopped at the limit: its cost does not grow with the log. A type list is one
 * such read per type, merged (query-plan.ts). `at_key` never decreases along `key`, so a
 * time range is found by two seeks of its index and becomes a range of keys.
 */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS activity (
  key       TEXT PRIMARY KEY,
  type      TEXT NOT NULL,
  at_key    TEXT NOT NULL,
  actor_key TEXT NOT NULL,
  person    TEXT,
  scope1    TEXT,
  scope2    TEXT,
  scope3    TEXT,
  entry     TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS activity_by_type   ON activity (type, key);
CREATE INDEX IF NOT EXISTS activity_by_actor  ON activity (actor_key, key);
CREATE INDEX IF NOT EXISTS activity_by_person ON activity (person, key) WHERE person IS NOT NULL;
CREATE INDEX IF NOT EXISTS activity_by_scope1 ON activity (scope1, key) WHERE scope1 IS NOT NULL;
CREATE INDEX IF NOT EXISTS activity_by_scope2 ON activity (scope2, key) WHERE scope2 IS NOT NULL;
CREATE INDEX IF NOT EXISTS activity_by_scope3 ON activity (scope3, key) WHERE scope3 IS NOT NULL;
CREATE INDEX IF NOT EXISTS activity_by_time   ON activity (at_key, key);
CREATE TABLE IF NOT EXISTS activity_checkpoint (
  id       INTEGER PRIMARY KEY CHECK (id = 1),
  position TEXT NOT NULL,
  at_key   TEXT
);
`;

type Row = { entry: string };

/** The embedded activity store: its own SQLite file (WAL), so its writes never wait on the read model's. */
export function openSqliteActivityStore(file: string): ActivityStore {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 10000');
  db.pragma('synchronous = NORMAL');
  db.exec(SCHEMA);

  const getCheckpoint = db.prepare<[], { position: string; at_key: string | null }>('SELECT position, at_key FROM activity_checkpoint WHERE id = 1');
  const putCheckpoint = db.prepare<[string, string | null]>(
    'INSERT INTO activity_checkpoint (id, position, at_key) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET position = excluded.position, at_key = excluded.at_key',
  );
  const insert = db.prepare<[string, string, string, string, string | null, string | null, string | null, string | null, string]>(
    'INSERT OR IGNORE INTO activity (key, type, at_key, actor_key, person, scope1, scope2, scope3, entry) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const firstAtOrAfter = db.prepare<[string], { key: string }>('SELECT key FROM activity WHERE at_key >= ? ORDER BY at_key, key LIMIT 1');
  const lastAtOrBefore = db.prepare<[string], { key: string }>('SELECT key FROM activity WHERE at_key <= ? ORDER BY at_key DESC, key DESC LIMIT 1');

  const insertRows = db.transaction((rows: readonly ActivityRow[]) => {
    for (const r of rows) {
      insert.run(r.key, r.entry.type, r.atKey, r.actorKey, r.person ?? null, r.scopes[0] ?? null, r.scopes[1] ?? null, r.scopes[2] ?? null, JSON.stringify(r.entry));
    }
  });
  const commitTx = db.transaction((from: string | undefined, checkpoint: string, atKey: string | undefined) => {
    if (getCheckpoint.get()?.position !== from) throw new Error('activity checkpoint moved by another projector while this batch was built; the batch was not committed');
    putCheckpoint.run(checkpoint, atKey ?? null);
  });

  // Statements by the shape of the query (which filters, which index, which order): a few dozen at most.
  const statements = new Map<string, Database.Statement>();
  const prepared = (sql: string): Database.Statement => {
    let stmt = statements.get(sql);
    if (!stmt) {
      stmt = db.prepare(sql);
      statements.set(sql, stmt);
    }
    return stmt;
  };

  /** The equality filters of a query (one type at a time), each with the index that serves it. */
  const conditions = (filter: ActivityFilter, type: string | undefined): { index: string; sql: string; name: string; value: string }[] => {
    const out: { index: string; sql: string; name: string; value: string }[] = [];
    if (type !== undefined) out.push({ index: 'activity_by_type', sql: 'type = @type', name: 'type', value: type });
    if (filter.actor?.by === 'actor') out.push({ index: 'activity_by_actor', sql: 'actor_key = @actor', name: 'actor', value: filter.actor.key });
    else if (filter.actor?.by === 'person') out.push({ index: 'activity_by_person', sql: 'person = @person', name: 'person', value: filter.actor.name });
    if (filter.site) {
      const depth = filter.site.split('/').length;
      out.push({ index: `activity_by_scope${depth}`, sql: `scope${depth} = @site`, name: 'site', value: filter.site });
    }
    return out;
  };

  /** Key-range terms shared by every read of a page. */
  const rangeOf = (bounds: TimeBounds, page: ActivityPage): { sql: string[]; params: Record<string, string> } => {
    const sql: string[] = [];
    const params: Record<string, string> = {};
    if (page.after !== undefined) {
      sql.push(page.order === 'desc' ? 'key < @after' : 'key > @after');
      params.after = page.after;
    }
    if (bounds.from !== undefined) {
      sql.push('key >= @lo');
      params.lo = bounds.from;
    }
    if (bounds.to !== undefined) {
      sql.push('key <= @hi');
      params.hi = bounds.to;
    }
    return { sql, params };
  };

  /**
   * Which index drives a query with several filters: the one with the fewest entries in the
   * range, counted in the index alone and only up to a cap (a fraction of a millisecond
   * each). The page then reads that index in key order and checks the other filters on the
   * rows it meets, so it reads at most about as many rows as the rarest filter has.
   */
  const DRIVER_CAP = 20_000;
  const rarest = (conds: ReturnType<typeof conditions>, range: ReturnType<typeof rangeOf>): string | undefined => {
    if (conds.length < 2) return conds[0]?.index;
    let best: { index: string; n: number } | undefined;
    for (const c of conds) {
      const where = [c.sql, ...range.sql].join(' AND ');
      const { n } = prepared(`SELECT count(*) AS n FROM (SELECT 1 FROM activity INDEXED BY ${c.index} WHERE ${where} LIMIT ${DRIVER_CAP})`).get({ ...range.params, [c.name]: c.value }) as { n: number };
      if (!best || n < best.n) best = { index: c.index, n };
    }
    return best?.index;
  };

  const pageOf = (filter: ActivityFilter, type: string | undefined, bounds: TimeBounds, page: ActivityPage): Activity[] => {
    const conds = conditions(filter, type);
    const range = rangeOf(bounds, page);
    const driver = rarest(conds, range);
    const where = [...conds.map((c) => c.sql), ...range.sql];
    const params: Record<string, string | number> = { limit: page.limit, ...range.params, ...Object.fromEntries(conds.map((c) => [c.name, c.value])) };
    const desc = page.order === 'desc';
    const sql = `SELECT entry FROM activity${driver ? ` INDEXED BY ${driver}` : ''}${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY key ${desc ? 'DESC' : 'ASC'} LIMIT @limit`;
    return (prepared(sql).all(params) as Row[]).map((r) => JSON.parse(r.entry) as Activity);
  };
  return {
    async beginBatch() {
      const stored = getCheckpoint.get();
      const from = stored?.position;
      let lastAtKey = stored?.at_key ?? undefined;
      return {
        from,
        streams: 0,
        async add(events: readonly Recorded[]) {
          const { rows, lastAtKey: next } = activityRows(events, lastAtKey);
          insertRows.immediate(rows);
          lastAtKey = next;
        },
        async commit(checkpoint: string) {
          commitTx.immediate(from, checkpoint, lastAtKey);
        },
      };
    },
    async checkpoint() {
      return getCheckpoint.get()?.position;
    },
    async query(filter, page) {
      const bounds = timeBounds(filter, {
        first: (since) => firstAtOrAfter.get(since)?.key,
        last: (until) => lastAtOrBefore.get(until)?.key,
      });
      if (bounds === 'empty') return [];
      const read = db.transaction(() =>
        filter.types && filter.types.length > 0 ? mergePages(filter.types.map((t) => pageOf(filter, t, bounds, page)), page) : pageOf(filter, undefined, bounds, page),
      );
      return read.deferred();
    },
    async close() {
      db.close();
    },
  };
}

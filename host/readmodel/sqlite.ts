import Database from 'better-sqlite3';
import { LRUCache } from 'lru-cache';
import type { Recorded } from '../../domain/events.ts';
import { batchFold, type StreamChange } from '../../projections/batch.ts';
import { positionKey } from '../../projections/positions.ts';
import { applyTreeChanges, treeChangesOf, treeNodesOf, type TreeNodeDoc } from '../../projections/site-tree.ts';
import { withLastUse, type ConnectionDoc, type KeyDoc, type OAuthClientDoc, type SiteDoc, type StreamRecord } from '../../projections/documents.ts';
import type { ReadModel, SiteListResult, SiteQuery, SiteRef } from '../../projections/read-model.ts';
import { sqliteDeploys } from './sqlite-deploys.ts';
import { PROJECTED_TABLES, SCHEMA, SCHEMA_VERSION, SITE_INDEXES } from './sqlite-schema.ts';
import { siteListSql, siteMatchSql } from './sqlite-queries.ts';
import { prepareStatements, type DocRow, type UsedRow } from './sqlite-statements.ts';
import { sqliteWriter } from './sqlite-write.ts';

/** Parsed site documents kept (about 1 KB of heap each): more than a filtered listing of 100,000 sites matches in the benchmark. */
const PARSED_MAX = 20_000;

/** Changes from which a batch into empty site tables builds their indexes afterwards (see SITE_INDEXES). */
const BULK_LOAD = 1_000;

const byStream = (a: StreamChange, b: StreamChange): number => (a.after.stream < b.after.stream ? -1 : a.after.stream > b.after.stream ? 1 : 0);

/**
 * The embedded read model: one SQLite file (WAL) that several processes may share.
 * `apply` runs as one IMMEDIATE transaction, so the documents and the checkpoint are
 * stored together or not at all, and two projectors never interleave.
 */
export function openSqliteReadModel(file: string, opts: { readonly parsedMax?: number } = {}): ReadModel {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 10000');
  db.pragma('synchronous = NORMAL');
  migrate(db);

  const s = prepareStatements(db);

  // Parsed site documents by stream and revision. A filtered listing returns every match
  // (for its tree), and reading and parsing thousands of JSON documents per request would
  // dominate its latency; a stream's document at a given revision never changes (a replay
  // rebuilds the same one), so the cache stays exact across processes. Bounded (least
  // recently used out): unbounded, it came to hold every site once the listings had touched
  // them all, about 1 KB of heap a site (100 MB at 100,000 sites).
  const parsed = new LRUCache<string, { revision: number; doc: SiteDoc }>({ max: opts.parsedMax ?? PARSED_MAX });
  const parseRow = (row: DocRow): SiteDoc => {
    const hit = parsed.get(row.stream);
    return hit && hit.revision === row.revision ? hit.doc : (JSON.parse(row.doc) as SiteDoc);
  };
  const siteDoc = (row: DocRow): SiteDoc => {
    const doc = parseRow(row);
    parsed.set(row.stream, { revision: row.revision, doc });
    return doc;
  };
  const siteDocs = (refs: readonly { stream: string; revision: number }[]): SiteDoc[] => {
    const docs = new Map<string, SiteDoc>();
    const missing: string[] = [];
    for (const r of refs) {
      const hit = parsed.get(r.stream);
      if (hit?.revision === r.revision) docs.set(r.stream, hit.doc);
      else missing.push(r.stream);
    }
    if (missing.length > 0) {
      for (const row of s.siteDocs.all(JSON.stringify(missing))) docs.set(row.stream, siteDoc(row));
    }
    return refs.map((r) => docs.get(r.stream)!);
  };

  const writer = sqliteWriter(db, s);
  const load = (streams: readonly string[]): Map<string, StreamRecord> => {
    const loaded = new Map<string, StreamRecord>();
    if (streams.length === 0) return loaded;
    for (const row of s.load.all(JSON.stringify(streams))) {
      loaded.set(row.stream, { stream: row.stream, kind: row.kind, revision: row.revision, doc: row.doc === null ? null : (JSON.parse(row.doc) as StreamRecord['doc']) });
    }
    return loaded;
  };
  /**
   * Writes the changes and the group tree nodes they move, stamped with the batch's position;
   * returns the site documents written, for the parse cache once committed. Into an empty
   * read model (a replay, a first start) every change is an insert, made in key order: each
   * B-tree then grows at its right edge, where random order splits pages all over it.
   */
  const store = (changes: readonly StreamChange[], checkpoint: string): StreamRecord[] => {
    const fresh = s.anyStream.get() === undefined;
    const bulk = changes.length >= BULK_LOAD && s.anySite.get() === undefined;
    if (bulk) for (const index of SITE_INDEXES) db.exec(`DROP INDEX IF EXISTS ${index.name}`);
    const sites: StreamRecord[] = [];
    const written: StreamChange[] = [];
    const ordered = fresh ? [...changes].sort(byStream) : changes;
    for (const change of ordered) {
      if (fresh) writer.insert(change.after);
      else if (!writer.write(change)) continue;
      if (change.after.kind !== 'site') continue;
      written.push(change);
      if (change.after.doc) sites.push(change.after);
    }
    storeTree(written, checkpoint);
    if (bulk) for (const index of SITE_INDEXES) db.exec(index.sql);
    return sites;
  };
  const storeTree = (changes: readonly StreamChange[], checkpoint: string): void => {
    const tree = treeChangesOf(changes);
    if (tree.length === 0) return;
    const loaded = new Map<string, TreeNodeDoc>();
    for (const row of s.treeNodes.all(JSON.stringify(treeNodesOf(tree)))) loaded.set(row.path, JSON.parse(row.doc) as TreeNodeDoc);
    const version = positionKey(checkpoint);
    for (const [path, node] of applyTreeChanges(loaded, tree)) {
      if (node) s.putTreeNode.run(path, version, JSON.stringify(node));
      else s.delTreeNode.run(path);
    }
  };
  /**
   * Refreshes the parsed documents a reader already holds with those a batch wrote. Only those:
   * a replay or a catch-up writes every site, and keeping each would hold 100,000 documents
   * in memory (about half of a replay's peak RSS at that size) for listings that may never
   * ask for them; the unfiltered listing reads the group tree, not the documents.
   */
  const remember = (sites: readonly StreamRecord[]): void => {
    for (const r of sites) if (parsed.has(r.stream)) parsed.set(r.stream, { revision: r.revision, doc: r.doc as SiteDoc });
  };

  const applyTx = db.transaction((events: readonly Recorded[], checkpoint: string) => {
    const fold = batchFold();
    fold.add(events, load(fold.missing(events)));
    const sites = store(fold.changes(), checkpoint);
    s.putCheckpoint.run(checkpoint);
    return sites;
  });
  const commitTx = db.transaction((changes: readonly StreamChange[], from: string | undefined, checkpoint: string) => {
    // Loads ran outside this transaction; an unmoved checkpoint says no other projector wrote since.
    if (s.checkpoint.get()?.position !== from) throw new Error('projection checkpoint moved by another projector while this batch was built; the batch was not committed');
    const sites = store(changes, checkpoint);
    s.putCheckpoint.run(checkpoint);
    return sites;
  });

  const readTx = <T>(fn: () => T): T => db.transaction(fn).deferred();

  const resetTx = db.transaction(() => {
    for (const table of PROJECTED_TABLES) db.exec(`DELETE FROM ${table}`);
  });

  const parse = <T>(row: { doc: string } | undefined): T | undefined => (row ? (JSON.parse(row.doc) as T) : undefined);
  const key = (row: UsedRow): KeyDoc => withLastUse(JSON.parse(row.doc) as KeyDoc, row.used);
  const connection = (row: UsedRow): ConnectionDoc => withLastUse(JSON.parse(row.doc) as ConnectionDoc, row.used);

  return {
    async checkpoint() {
      return s.checkpoint.get()?.position;
    },
    async apply(events, checkpoint) {
      remember(applyTx.immediate(events, checkpoint));
    },
    async beginBatch() {
      const from = s.checkpoint.get()?.position;
      const fold = batchFold();
      return {
        from,
        get streams() {
          return fold.streams;
        },
        get bytes() {
          return fold.bytes;
        },
        async add(events) {
          fold.add(events, load(fold.missing(events)));
        },
        async commit(checkpoint) {
          remember(commitTx.immediate(fold.changes(), from, checkpoint));
        },
      };
    },
    async streamRevision(stream) {
      return s.streamRevision.get(stream)?.revision ?? -1;
    },
    async getSite(path) {
      const row = s.getSite.get(path);
      return row && siteDoc(row);
    },
    async listSites(query: SiteQuery): Promise<SiteListResult> {
      const { sql, params } = siteListSql(query);
      // Both reads in one transaction: a concurrent projector cannot change rows in between.
      const all = readTx(() => siteDocs(db.prepare<[Record<string, string>], { stream: string; revision: number }>(sql).all(params)));
      return { page: all.slice(query.offset, query.offset + query.limit), count: all.length, all };
    },
    async sitePage(query: SiteQuery) {
      const { sql, params } = siteListSql(query);
      const paged = `${sql} LIMIT @limit OFFSET @offset`;
      return readTx(() => siteDocs(db.prepare<[Record<string, string | number>], { stream: string; revision: number }>(paged).all({ ...params, limit: query.limit, offset: query.offset })));
    },
    async siteMatches(query: SiteQuery, paths) {
      if (paths?.length === 0) return [];
      const { sql, params } = siteMatchSql(query, paths);
      return db.prepare<[Record<string, string>], SiteRef>(sql).all(params);
    },
    async getSites(paths) {
      if (paths.length === 0) return [];
      // Not remembered: the group tree (ListingTree) asks for the sites of the chunks it renders
      // again, once, and keeps their bytes, not the documents.
      return s.sitesByPath.all(JSON.stringify(paths)).map(parseRow);
    },
    async listingVersion() {
      return s.listingVersion.get()?.version ?? '';
    },
    async siteTree(since) {
      return readTx(() => ({
        version: s.listingVersion.get()?.version ?? '',
        nodes: s.treeSince.all(since ?? '').map((r) => ({ version: r.version, node: JSON.parse(r.doc) as TreeNodeDoc })),
      }));
    },
    async listQuarantined() {
      return s.quarantined.all().map(siteDoc);
    },
    async siteByDomain(domain) {
      const rows = s.siteByDomain.all(domain);
      return rows.length === 1 ? siteDoc(rows[0]!) : undefined;
    },
    async getKey(id) {
      const row = s.getKey.get(id);
      return row && key(row);
    },
    async getKeyByTokenHash(tokenHash) {
      const row = s.getKeyByToken.get(tokenHash);
      return row && key(row);
    },
    async listKeys() {
      return s.listKeys.all().map(key);
    },
    async getConnection(id) {
      const row = s.getConnection.get(id);
      return row && connection(row);
    },
    async listConnections() {
      return s.listConnections.all().map(connection);
    },
    async getOAuthClient(clientId) {
      return parse<OAuthClientDoc>(s.getClient.get(clientId));
    },
    async listExpiredUnusedOAuthClients(by, limit) {
      return s.expiredUnusedClients.all(by, limit).map((r) => JSON.parse(r.doc) as OAuthClientDoc);
    },
    async listSitesWithExpiredPreviews(by, limit) {
      return s.expiredPreviews.all(by, limit).map(siteDoc);
    },
    async indexManifest(manifest, blobs) {
      s.indexManifest.run(manifest, JSON.stringify(blobs));
    },
    async referencedBlobs(candidates) {
      if (candidates.length === 0) return new Set();
      return new Set(s.referenced.all(JSON.stringify([...new Set(candidates)])).map((r) => r.hash));
    },
    async tryLease(name, holder, ttlMs) {
      const now = Date.now();
      return s.tryLease.run({ name, holder, expiresAt: now + ttlMs, now }).changes > 0;
    },
    async releaseLease(name, holder) {
      s.releaseLease.run(name, holder);
    },
    async leaseHolder(name) {
      return s.leaseHolder.get(name)?.holder;
    },
    async takeOverLease(name, gone, holder, ttlMs) {
      return s.takeOverLease.run({ name, gone, holder, expiresAt: Date.now() + ttlMs }).changes > 0;
    },
    ...sqliteDeploys(db),
    async reset() {
      resetTx.immediate();
      parsed.clear();
    },
    async close() {
      if (db.open) db.close();
    },
  };
}

function migrate(db: Database.Database): void {
  db.transaction(() => {
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version !== SCHEMA_VERSION && version !== 0) for (const table of PROJECTED_TABLES) db.exec(`DROP TABLE IF EXISTS ${table}`);
    // Every table is `IF NOT EXISTS`: tables added since the file was made appear here.
    db.exec(SCHEMA);
    if (version !== SCHEMA_VERSION) db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }).immediate();
}

import Database from 'better-sqlite3';
import type { Recorded } from '../../domain/events.ts';
import type { ConnectionDoc, KeyDoc, OAuthClientDoc, SiteDoc, StreamRecord } from '../../projections/documents.ts';
import { projectBatch } from '../../projections/project.ts';
import type { ReadModel, SiteListResult, SiteQuery } from '../../projections/read-model.ts';
import { retainedRevisions, siteIndexFields } from './derive.ts';
import { PROJECTED_TABLES, SCHEMA, SCHEMA_VERSION } from './sqlite-schema.ts';
import { siteListSql } from './sqlite-queries.ts';

type Row = { stream: string; kind: StreamRecord['kind']; revision: number; doc: string | null };
type DocRow = { stream: string; revision: number; doc: string };

/**
 * The embedded read model: one SQLite file (WAL) that several processes may share.
 * `apply` runs as one IMMEDIATE transaction, so the documents and the checkpoint are
 * stored together or not at all, and two projectors never interleave.
 */
export function openSqliteReadModel(file: string): ReadModel {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 10000');
  db.pragma('synchronous = NORMAL');
  migrate(db);

  const s = {
    load: db.prepare<[string], Row>(`SELECT stream, kind, revision, doc FROM streams WHERE stream IN (SELECT value FROM json_each(?))`),
    putStream: db.prepare(
      `INSERT INTO streams (stream, kind, revision, doc) VALUES (@stream, @kind, @revision, @doc)
       ON CONFLICT (stream) DO UPDATE SET kind = excluded.kind, revision = excluded.revision, doc = excluded.doc`,
    ),
    streamRevision: db.prepare<[string], { revision: number }>(`SELECT revision FROM streams WHERE stream = ?`),
    checkpoint: db.prepare<[], { position: string }>(`SELECT position FROM checkpoint WHERE id = 1`),
    putCheckpoint: db.prepare(`INSERT INTO checkpoint (id, position) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET position = excluded.position`),

    delSite: db.prepare(`DELETE FROM sites WHERE stream = ?`),
    delTags: db.prepare(`DELETE FROM site_tags WHERE stream = ?`),
    delRevisions: db.prepare(`DELETE FROM revisions WHERE stream = ?`),
    putSite: db.prepare(
      `INSERT INTO sites (stream, revision, path, grp, slug, title_lc, desc_lc, date, undated, hidden, status, updated_at, deleted_at, doc)
       VALUES (@stream, @revision, @path, @grp, @slug, @titleLc, @descLc, @date, @undated, @hidden, @status, @updatedAt, @deletedAt, @doc)`,
    ),
    putTag: db.prepare(`INSERT INTO site_tags (stream, tag, tag_lc) VALUES (?, ?, ?)`),
    putRevision: db.prepare(`INSERT INTO revisions (stream, revision_id, manifest, favicon) VALUES (?, ?, ?, ?)`),
    siteDocs: db.prepare<[string], DocRow>(`SELECT stream, revision, doc FROM sites WHERE stream IN (SELECT value FROM json_each(?))`),
    getSite: db.prepare<[string], DocRow>(`SELECT stream, revision, doc FROM sites WHERE path = ?`),
    quarantined: db.prepare<[], DocRow>(`SELECT stream, revision, doc FROM sites WHERE status = 'quarantined' ORDER BY deleted_at DESC, path ASC`),

    delKey: db.prepare(`DELETE FROM keys WHERE stream = ?`),
    putKey: db.prepare(`INSERT INTO keys (stream, id, token_hash, doc) VALUES (?, ?, ?, ?)`),
    getKey: db.prepare<[number], { doc: string }>(`SELECT doc FROM keys WHERE id = ?`),
    getKeyByToken: db.prepare<[string], { doc: string }>(`SELECT doc FROM keys WHERE token_hash = ?`),
    listKeys: db.prepare<[], { doc: string }>(`SELECT doc FROM keys ORDER BY id ASC`),

    delConnection: db.prepare(`DELETE FROM connections WHERE stream = ?`),
    putConnection: db.prepare(`INSERT INTO connections (stream, id, created_at, doc) VALUES (?, ?, ?, ?)`),
    getConnection: db.prepare<[string], { doc: string }>(`SELECT doc FROM connections WHERE id = ?`),
    listConnections: db.prepare<[], { doc: string }>(`SELECT doc FROM connections ORDER BY created_at ASC, id ASC`),
    delClient: db.prepare(`DELETE FROM oauth_clients WHERE stream = ?`),
    putClient: db.prepare(`INSERT INTO oauth_clients (stream, client_id, doc) VALUES (?, ?, ?)`),
    getClient: db.prepare<[string], { doc: string }>(`SELECT doc FROM oauth_clients WHERE client_id = ?`),

    indexManifest: db.prepare(`INSERT OR IGNORE INTO manifest_blobs (manifest, blob) SELECT ?, value FROM json_each(?)`),
    referenced: db.prepare<[string], { hash: string }>(
      `SELECT c.value AS hash FROM json_each(?) c
        WHERE EXISTS (SELECT 1 FROM revisions r WHERE r.manifest = c.value)
           OR EXISTS (SELECT 1 FROM revisions r WHERE r.favicon = c.value)
           OR EXISTS (SELECT 1 FROM manifest_blobs m JOIN revisions r ON r.manifest = m.manifest WHERE m.blob = c.value)`,
    ),

    // One statement, so taking a lease is atomic across processes: insert, renew our own, or take an expired one.
    tryLease: db.prepare(
      `INSERT INTO leases (name, holder, expires_at) VALUES (@name, @holder, @expiresAt)
       ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
       WHERE leases.holder = excluded.holder OR leases.expires_at <= @now`,
    ),
    releaseLease: db.prepare(`DELETE FROM leases WHERE name = ? AND holder = ?`),
  };

  // Parsed site documents by stream and revision. A listing returns every match (for the
  // tree), and reading and parsing thousands of JSON documents per request would dominate
  // its latency; a stream's document at a given revision never changes (a replay rebuilds
  // the same one), so the cache stays exact across processes.
  const parsed = new Map<string, { revision: number; doc: SiteDoc }>();
  const siteDoc = (row: DocRow): SiteDoc => {
    const hit = parsed.get(row.stream);
    if (hit && hit.revision === row.revision) return hit.doc;
    const doc = JSON.parse(row.doc) as SiteDoc;
    parsed.set(row.stream, { revision: row.revision, doc });
    return doc;
  };
  const siteDocs = (refs: readonly { stream: string; revision: number }[]): SiteDoc[] => {
    const missing = refs.filter((r) => parsed.get(r.stream)?.revision !== r.revision).map((r) => r.stream);
    if (missing.length > 0) {
      for (const row of s.siteDocs.all(JSON.stringify(missing))) siteDoc(row);
    }
    return refs.map((r) => parsed.get(r.stream)!.doc);
  };

  const persist = (record: StreamRecord): void => {
    const json = record.doc === null ? null : JSON.stringify(record.doc);
    s.putStream.run({ stream: record.stream, kind: record.kind, revision: record.revision, doc: json });
    switch (record.kind) {
      case 'site': {
        s.delSite.run(record.stream);
        s.delTags.run(record.stream);
        s.delRevisions.run(record.stream);
        const doc = record.doc as SiteDoc | null;
        if (!doc || json === null) return;
        const f = siteIndexFields(doc);
        s.putSite.run({
          stream: record.stream,
          revision: record.revision,
          path: doc.path,
          grp: doc.group,
          slug: doc.slug,
          titleLc: f.titleLc,
          descLc: f.descriptionLc,
          date: f.date,
          undated: f.date === '' ? 1 : 0,
          hidden: f.hidden ? 1 : 0,
          status: doc.status,
          updatedAt: doc.updatedAt,
          deletedAt: doc.deletedAt ?? null,
          doc: json,
        });
        f.tags.forEach((tag, i) => s.putTag.run(record.stream, tag, f.tagsLc[i]));
        for (const r of retainedRevisions(doc)) s.putRevision.run(record.stream, r.id, r.manifest, r.favicon);
        return;
      }
      case 'key': {
        s.delKey.run(record.stream);
        const doc = record.doc as KeyDoc | null;
        if (doc) s.putKey.run(record.stream, doc.id, doc.tokenHash, json);
        return;
      }
      case 'connection': {
        s.delConnection.run(record.stream);
        const doc = record.doc as ConnectionDoc | null;
        if (doc) s.putConnection.run(record.stream, doc.id, doc.createdAt, json);
        return;
      }
      case 'oauthclient': {
        s.delClient.run(record.stream);
        const doc = record.doc as OAuthClientDoc | null;
        if (doc) s.putClient.run(record.stream, doc.clientId, json);
        return;
      }
      case 'sequence':
        return;
      default: {
        const never: never = record.kind;
        throw new Error(`unknown document kind ${String(never)}`);
      }
    }
  };

  const applyTx = db.transaction((events: readonly Recorded[], checkpoint: string) => {
    const streams = [...new Set(events.map((e) => e.stream))];
    const loaded = new Map<string, StreamRecord>();
    for (const row of s.load.all(JSON.stringify(streams))) {
      loaded.set(row.stream, { stream: row.stream, kind: row.kind, revision: row.revision, doc: row.doc === null ? null : JSON.parse(row.doc) });
    }
    for (const record of projectBatch(events, loaded).values()) persist(record);
    s.putCheckpoint.run(checkpoint);
  });

  const readTx = <T>(fn: () => T): T => db.transaction(fn).deferred();

  const resetTx = db.transaction(() => {
    for (const table of PROJECTED_TABLES) db.exec(`DELETE FROM ${table}`);
  });

  const parse = <T>(row: { doc: string } | undefined): T | undefined => (row ? (JSON.parse(row.doc) as T) : undefined);

  return {
    async checkpoint() {
      return s.checkpoint.get()?.position;
    },
    async apply(events, checkpoint) {
      applyTx.immediate(events, checkpoint);
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
    async listQuarantined() {
      return s.quarantined.all().map(siteDoc);
    },
    async getKey(id) {
      return parse<KeyDoc>(s.getKey.get(id));
    },
    async getKeyByTokenHash(tokenHash) {
      return parse<KeyDoc>(s.getKeyByToken.get(tokenHash));
    },
    async listKeys() {
      return s.listKeys.all().map((r) => JSON.parse(r.doc) as KeyDoc);
    },
    async getConnection(id) {
      return parse<ConnectionDoc>(s.getConnection.get(id));
    },
    async listConnections() {
      return s.listConnections.all().map((r) => JSON.parse(r.doc) as ConnectionDoc);
    },
    async getOAuthClient(clientId) {
      return parse<OAuthClientDoc>(s.getClient.get(clientId));
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
    if (version === SCHEMA_VERSION) return;
    if (version !== 0) for (const table of PROJECTED_TABLES) db.exec(`DROP TABLE IF EXISTS ${table}`);
    db.exec(SCHEMA);
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }).immediate();
}

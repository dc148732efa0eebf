import type Database from 'better-sqlite3';
import type { ConnectionDoc, ConnectionUseDoc, KeyDoc, KeyUseDoc, OAuthClientDoc, SiteDoc, StreamRecord } from '../../projections/documents.ts';
import type { StreamChange } from '../../projections/batch.ts';
import { previewExpiry, retainedRevisions, siteIndexFields, type RetainedRevision, type SiteIndexFields } from './derive.ts';
import type { Statements } from './sqlite-statements.ts';

/** The columns of a `sites` row that its indexes and filters read, by column name. */
type SiteColumns = {
  path: string;
  grp: string;
  slug: string;
  title_lc: string;
  desc_lc: string;
  date: string;
  undated: number;
  hidden: number;
  status: string;
  updated_at: string;
  deleted_at: string | null;
  preview_expires: string | null;
};
const SITE_COLUMNS = ['path', 'grp', 'slug', 'title_lc', 'desc_lc', 'date', 'undated', 'hidden', 'status', 'updated_at', 'deleted_at', 'preview_expires'] as const;

function siteColumns(doc: SiteDoc, f: SiteIndexFields): SiteColumns {
  return {
    path: doc.path,
    grp: doc.group,
    slug: doc.slug,
    title_lc: f.titleLc,
    desc_lc: f.descriptionLc,
    date: f.date,
    undated: f.date === '' ? 1 : 0,
    hidden: f.hidden ? 1 : 0,
    status: doc.status,
    updated_at: doc.updatedAt,
    deleted_at: doc.deletedAt ?? null,
    preview_expires: previewExpiry(doc),
  };
}

/**
 * Writes projected records into the SQLite tables; runs inside the caller's transaction.
 * A record whose stored row is exactly the one it was projected from (the common case)
 * is written as a difference: the `sites` row is updated in the columns that changed
 * only (SQLite then leaves the indexes on the other columns alone), and only the tags and
 * retained revisions that came or went are deleted or inserted. Anything else (a record
 * another projector moved meanwhile) is rewritten whole from its document.
 */
export function sqliteWriter(db: Database.Database, s: Statements) {
  // `UPDATE sites` statements by the set of indexed columns they change (a handful in practice).
  const updates = new Map<string, Database.Statement>();
  const updateSite = (stream: string, revision: number, json: string, before: SiteColumns, after: SiteColumns): void => {
    const changed = SITE_COLUMNS.filter((c) => before[c] !== after[c]);
    const key = changed.join(',');
    let stmt = updates.get(key);
    if (!stmt) {
      const set = ['revision = @revision', 'doc = @doc', ...changed.map((c) => `${c} = @${c}`)].join(', ');
      stmt = db.prepare(`UPDATE sites SET ${set} WHERE stream = @stream`);
      updates.set(key, stmt);
    }
    stmt.run({ ...after, stream, revision, doc: json });
  };

  const insertRows = (record: StreamRecord, json: string): void => {
    const { stream } = record;
    switch (record.kind) {
      case 'site': {
        const doc = record.doc as SiteDoc;
        const f = siteIndexFields(doc);
        const c = siteColumns(doc, f);
        s.putSite.run(stream, record.revision, c.path, c.grp, c.slug, c.title_lc, c.desc_lc, c.date, c.undated, c.hidden, c.status, c.updated_at, c.deleted_at, c.preview_expires, json);
        f.tags.forEach((tag, i) => s.putTag.run(stream, tag, f.tagsLc[i]));
        for (const r of retainedRevisions(doc)) s.putRevision.run(stream, r.id, r.manifest, r.favicon);
        for (const domain of doc.domains ?? []) s.putDomain.run(domain, stream);
        return;
      }
      case 'key': {
        const doc = record.doc as KeyDoc;
        s.putKey.run(stream, doc.id, doc.tokenHash, json);
        return;
      }
      case 'keyuse': {
        const doc = record.doc as KeyUseDoc;
        s.putKeyUse.run(stream, doc.id, doc.lastUsedAt);
        return;
      }
      case 'connection': {
        const doc = record.doc as ConnectionDoc;
        s.putConnection.run(stream, doc.id, doc.createdAt, json);
        return;
      }
      case 'connectionuse': {
        const doc = record.doc as ConnectionUseDoc;
        s.putConnectionUse.run(stream, doc.id, doc.lastUsedAt);
        return;
      }
      case 'oauthclient': {
        const doc = record.doc as OAuthClientDoc;
        s.putClient.run(stream, doc.clientId, doc.unusedExpiresAt ?? null, json);
        return;
      }
      case 'sequence':
      case 'webhook':
        return;
      default: {
        const never: never = record.kind;
        throw new Error(`unknown document kind ${String(never)}`);
      }
    }
  };

  const deleteRows = (kind: StreamRecord['kind'], stream: string): void => {
    switch (kind) {
      case 'site':
        s.delSite.run(stream);
        s.delTags.run(stream);
        s.delRevisions.run(stream);
        s.delDomains.run(stream);
        return;
      case 'key':
        s.delKey.run(stream);
        return;
      case 'keyuse':
        s.delKeyUse.run(stream);
        return;
      case 'connection':
        s.delConnection.run(stream);
        return;
      case 'connectionuse':
        s.delConnectionUse.run(stream);
        return;
      case 'oauthclient':
        s.delClient.run(stream);
        return;
      case 'sequence':
      case 'webhook':
        return;
      default: {
        const never: never = kind;
        throw new Error(`unknown document kind ${String(never)}`);
      }
    }
  };

  const siteDifference = (was: SiteDoc, after: StreamRecord, json: string): void => {
    const { stream } = after;
    const doc = after.doc as SiteDoc;
    const old = siteIndexFields(was);
    const f = siteIndexFields(doc);
    updateSite(stream, after.revision, json, siteColumns(was, old), siteColumns(doc, f));
    const oldTags = new Set(old.tags);
    f.tags.forEach((tag, i) => {
      if (!oldTags.delete(tag)) s.putTag.run(stream, tag, f.tagsLc[i]);
    });
    for (const tag of oldTags) s.delTag.run(stream, tag);
    const oldRevisions = new Map(retainedRevisions(was).map((r) => [r.id, r]));
    for (const r of retainedRevisions(doc)) {
      const kept = oldRevisions.get(r.id);
      oldRevisions.delete(r.id);
      if (kept && sameRevision(kept, r)) continue;
      if (kept) s.delRevision.run(stream, r.id);
      s.putRevision.run(stream, r.id, r.manifest, r.favicon);
    }
    for (const id of oldRevisions.keys()) s.delRevision.run(stream, id);
    if (was.domains !== doc.domains) {
      const oldDomains = new Set(was.domains);
      for (const domain of doc.domains ?? []) if (!oldDomains.delete(domain)) s.putDomain.run(domain, stream);
      for (const domain of oldDomains) s.delDomain.run(stream, domain);
    }
  };

  return {
    /**
     * Stores one change. Returns false when the stored record is already at or past
     * `after` (another projector got there first): nothing is written then.
     */
    write(change: StreamChange): boolean {
      const { before, after } = change;
      const stored = s.streamRevision.get(after.stream)?.revision ?? -1;
      if (stored >= after.revision) return false;
      const json = after.doc === null ? null : JSON.stringify(after.doc);
      s.putStream.run(after.stream, after.kind, after.revision);
      // The rows of the document the stored record holds, when that is the one `after` was
      // projected from; undefined when another projector moved it: its rows are then unknown.
      const was = stored === (before?.revision ?? -1) ? (before?.doc ?? null) : undefined;
      if (was && json !== null && after.kind === 'site') {
        siteDifference(was as SiteDoc, after, json);
        return true;
      }
      if (was !== null) deleteRows(after.kind, after.stream);
      if (json !== null) insertRows(after, json);
      return true;
    },
    /**
     * Stores a record of a stream the tables hold nothing of (a rebuild's first batch, into
     * an empty `streams`): no stored revision to compare, no rows to replace.
     */
    insert(record: StreamRecord): void {
      s.putStream.run(record.stream, record.kind, record.revision);
      if (record.doc !== null) insertRows(record, JSON.stringify(record.doc));
    },
  };
}

const sameRevision = (a: RetainedRevision, b: RetainedRevision): boolean => a.manifest === b.manifest && a.favicon === b.favicon;

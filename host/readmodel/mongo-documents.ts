import type { Filter, IndexDescription, Sort } from 'mongodb';
import type { ConnectionDoc, DocKind, KeyDoc, OAuthClientDoc, SiteDoc, StreamRecord } from '../../projections/documents.ts';
import type { SiteQuery } from '../../projections/read-model.ts';
import { normalizedSearch, retainedRevisions, siteIndexFields } from './derive.ts';

/**
 * One MongoDB document per stream: the projected record plus the fields the queries
 * index, flattened at the top level. Keeping a stream's record and its query fields in
 * ONE document makes every projection write a single atomic, revision-guarded
 * replacement: there is no second collection that a crash could leave behind.
 * Query fields exist only while the stream has a document of that kind.
 */
export type StreamDocument = {
  _id: string;
  kind: DocKind;
  revision: number;
  /**
   * The checkpoint version the batch that wrote this document commits as: until the
   * checkpoint reaches it, the document is written but not yet committed (`streamRevision`).
   */
  committedAt?: number;
  doc: StreamRecord['doc'];
  // Sites
  path?: string;
  grp?: string;
  slug?: string;
  titleLc?: string;
  descLc?: string;
  tags?: string[];
  tagsLc?: string[];
  date?: string;
  /** True when the site has no date, so a date sort puts it last. */
  undated?: boolean;
  hidden?: boolean;
  status?: 'live' | 'quarantined';
  updatedAt?: string;
  deletedAt?: string;
  /** Manifests and favicons of the retained revisions (live and archived). */
  manifests?: string[];
  favicons?: string[];
  // Keys
  keyId?: number;
  tokenHash?: string;
  // Connections and OAuth clients
  connectionId?: string;
  createdAt?: string;
  clientId?: string;
  /** While an OAuth client was never used for a consent: when its registration ends (the expiry job's range). */
  unusedExpiresAt?: string;
};

/** Which blobs a manifest lists (content-derived; kept by `reset()`). */
export type ManifestDocument = { _id: string; blobs: string[] };
export type CheckpointDocument = { _id: string; position: string; version: number };
export type LeaseDocument = { _id: string; holder: string; expiresAt: Date };

export function toStreamDocument(record: StreamRecord): StreamDocument {
  const base: StreamDocument = { _id: record.stream, kind: record.kind, revision: record.revision, doc: record.doc };
  if (record.doc === null) return base;
  switch (record.kind) {
    case 'site': {
      const doc = record.doc as SiteDoc;
      const f = siteIndexFields(doc);
      const retained = retainedRevisions(doc);
      return {
        ...base,
        path: doc.path,
        grp: doc.group,
        slug: doc.slug,
        titleLc: f.titleLc,
        descLc: f.descriptionLc,
        tags: [...f.tags],
        tagsLc: [...f.tagsLc],
        date: f.date,
        undated: f.date === '',
        hidden: f.hidden,
        status: doc.status,
        updatedAt: doc.updatedAt,
        ...(doc.deletedAt ? { deletedAt: doc.deletedAt } : {}),
        manifests: [...new Set(retained.map((r) => r.manifest))],
        favicons: [...new Set(retained.flatMap((r) => (r.favicon ? [r.favicon] : [])))],
      };
    }
    case 'key': {
      const doc = record.doc as KeyDoc;
      return { ...base, keyId: doc.id, tokenHash: doc.tokenHash };
    }
    case 'connection': {
      const doc = record.doc as ConnectionDoc;
      return { ...base, connectionId: doc.id, createdAt: doc.createdAt };
    }
    case 'oauthclient': {
      const doc = record.doc as OAuthClientDoc;
      return { ...base, clientId: doc.clientId, ...(doc.unusedExpiresAt ? { unusedExpiresAt: doc.unusedExpiresAt } : {}) };
    }
    case 'sequence':
    case 'webhook':
      return base;
    default: {
      const never: never = record.kind;
      throw new Error(`unknown document kind ${String(never)}`);
    }
  }
}

const exists = (field: keyof StreamDocument) => ({ [field]: { $exists: true } });

/**
 * Indexes of the `streams` collection: one per sort of the site list (status and hidden
 * first, as every listing filters on them), the tag and group filters, the trash, the
 * blob-reference lookups and the key/connection/client lookups. Partial indexes, because
 * only documents of one kind carry each field.
 */
export const STREAM_INDEXES: IndexDescription[] = [
  { name: 'site_path', key: { path: 1 }, unique: true, partialFilterExpression: exists('path') },
  { name: 'site_by_date', key: { status: 1, hidden: 1, undated: 1, date: -1, updatedAt: -1, path: 1 } },
  { name: 'site_by_title', key: { status: 1, hidden: 1, titleLc: 1, path: 1 } },
  { name: 'site_by_slug', key: { status: 1, hidden: 1, slug: 1, path: 1 } },
  { name: 'site_tags', key: { tags: 1 } },
  { name: 'site_group', key: { grp: 1 } },
  { name: 'site_deleted', key: { status: 1, deletedAt: -1 } },
  { name: 'retained_manifests', key: { manifests: 1 } },
  { name: 'retained_favicons', key: { favicons: 1 } },
  { name: 'key_id', key: { keyId: 1 }, unique: true, partialFilterExpression: exists('keyId') },
  { name: 'key_token', key: { tokenHash: 1 }, unique: true, partialFilterExpression: exists('tokenHash') },
  { name: 'connection_id', key: { connectionId: 1 }, unique: true, partialFilterExpression: exists('connectionId') },
  { name: 'client_id', key: { clientId: 1 }, unique: true, partialFilterExpression: exists('clientId') },
  { name: 'client_unused_expiry', key: { unusedExpiresAt: 1, clientId: 1 }, partialFilterExpression: exists('unusedExpiresAt') },
];

/** `listExpiredUnusedOAuthClients` as a MongoDB filter and sort (the same selection and order as the SQLite adapter). */
export function expiredUnusedClientsQuery(by: string): { filter: Filter<StreamDocument>; sort: Sort } {
  return { filter: { unusedExpiresAt: { $exists: true, $lte: by } }, sort: { unusedExpiresAt: 1, clientId: 1 } };
}

const escapeRegex = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * `listSites` as a MongoDB filter and sort: the same semantics as the SQLite adapter
 * (substring search on lower-cased fields, exact tag, group subtree as an index range).
 */
export function siteListQuery(query: SiteQuery): { filter: Filter<StreamDocument>; sort: Sort } {
  // `hidden` is always constrained (an $in when hidden sites are included) so the sort indexes apply.
  const and: Filter<StreamDocument>[] = [{ status: 'live' }, { hidden: query.includeHidden ? { $in: [false, true] } : false }];
  if (query.tag !== undefined) and.push({ tags: query.tag });
  if (query.group) {
    // Groups beneath G sort in ['G/', 'G0'): '0' follows '/'.
    and.push({ $or: [{ grp: query.group }, { grp: { $gte: `${query.group}/`, $lt: `${query.group}0` } }, { path: query.group }] });
  }
  const q = normalizedSearch(query.q);
  if (q !== undefined) {
    const re = new RegExp(escapeRegex(q));
    and.push({ $or: [{ titleLc: re }, { slug: re }, { grp: re }, { descLc: re }, { tagsLc: re }] });
  }
  const sort: Sort =
    query.sort === 'date'
      ? { undated: 1, date: -1, updatedAt: -1, path: 1 }
      : query.sort === 'title'
        ? { titleLc: 1, path: 1 }
        : { slug: 1, path: 1 };
  return { filter: { $and: and }, sort };
}

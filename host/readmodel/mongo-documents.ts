import type { IndexDescription } from 'mongodb';
import { positionKey } from '../../projections/positions.ts';
import type { ConnectionDoc, ConnectionUseDoc, DocKind, KeyDoc, KeyUseDoc, OAuthClientDoc, SiteDoc, StreamRecord } from '../../projections/documents.ts';
import type { TreeNodeDoc } from '../../projections/site-tree.ts';
import { previewExpiry, retainedRevisions, siteIndexFields } from './derive.ts';

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
   * The position (as `positionKey` orders it) of the last event applied to this document:
   * the document counts as committed once the checkpoint's key reaches it (`streamRevision`).
   */
  at?: string;
  /**
   * Documents written before `at` existed: the checkpoint version their batch committed as.
   * Read only, for a read model projected by an earlier version.
   */
  committedAt?: number;
  doc: StreamRecord['doc'];
  // Sites
  path?: string;
  grp?: string;
  /**
   * The `group` filters this site matches (spec §5: the subtree of a group, and the site
   * whose full path is that group): every ancestor group of its group, its group, and its
   * own path. One equality on an array, so a group listing is an index scan in sort order.
   */
  scope?: string[];
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
  /** When the site's first preview expires (spec §14): the preview expiry job's range. */
  previewExpiresAt?: string;
  /** Custom domains attached to the site (spec §15); absent when none. */
  domains?: string[];
  /** Manifests and favicons of the retained revisions (live, archived and previews'). */
  manifests?: string[];
  favicons?: string[];
  // Keys
  keyId?: number;
  tokenHash?: string;
  /** A key's usage stream: the key it records uses of (joined to the key's document when read). */
  usedKeyId?: number;
  // Connections and OAuth clients
  connectionId?: string;
  /** A connection's usage stream: the connection it records uses of (joined to the connection's document when read). */
  usedConnectionId?: string;
  createdAt?: string;
  clientId?: string;
  /** While an OAuth client was never used for a consent: when its registration ends (the expiry job's range). */
  unusedExpiresAt?: string;
};

/** Which blobs a manifest lists (content-derived; kept by `reset()`). */
export type ManifestDocument = { _id: string; blobs: string[] };
/**
 * The projection checkpoint: `version` is the compare-and-set token of commits, `key` the
 * position as `positionKey` orders it (absent on a checkpoint written by an earlier version).
 */
/**
 * One node of the listing's group tree (projections/site-tree.ts) in the `site_tree`
 * collection (mongo-tree.ts): `_id` is the group's path ('' for the root), `version` the
 * position key (as the checkpoint's `key` orders it) of the batch that last wrote it.
 */
export type TreeDocument = { _id: string; version: string; node: TreeNodeDoc };

export type CheckpointDocument = { _id: string; position: string; version: number; key?: string };

/**
 * Whether a document stamped `at` is covered by the checkpoint whose key is `checkpointKey`
 * (absent on a checkpoint written by an earlier version: nothing is). Both are compared
 * through `positionKey`, so stamps and checkpoints written when the embedded log's positions
 * were padded to 15 digits compare correctly with those padded to 20 now.
 */
export function stampCommitted(at: string, checkpointKey: string | undefined): boolean {
  return checkpointKey !== undefined && positionKey(at) <= positionKey(checkpointKey);
}
export type LeaseDocument = { _id: string; holder: string; expiresAt: Date };

export function toStreamDocument(record: StreamRecord): StreamDocument {
  const base: StreamDocument = { _id: record.stream, kind: record.kind, revision: record.revision, doc: record.doc };
  if (record.doc === null) return base;
  switch (record.kind) {
    case 'site': {
      const doc = record.doc as SiteDoc;
      const f = siteIndexFields(doc);
      const retained = retainedRevisions(doc);
      const expiry = previewExpiry(doc);
      return {
        ...base,
        path: doc.path,
        grp: doc.group,
        scope: scopeOf(doc.group, doc.path),
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
        ...(expiry !== null ? { previewExpiresAt: expiry } : {}),
        ...(doc.domains?.length ? { domains: [...doc.domains] } : {}),
        manifests: [...new Set(retained.map((r) => r.manifest))],
        favicons: [...new Set(retained.flatMap((r) => (r.favicon ? [r.favicon] : [])))],
      };
    }
    case 'key': {
      const doc = record.doc as KeyDoc;
      return { ...base, keyId: doc.id, tokenHash: doc.tokenHash };
    }
    case 'keyuse': {
      const doc = record.doc as KeyUseDoc;
      return { ...base, usedKeyId: doc.id };
    }
    case 'connection': {
      const doc = record.doc as ConnectionDoc;
      return { ...base, connectionId: doc.id, createdAt: doc.createdAt };
    }
    case 'connectionuse': {
      const doc = record.doc as ConnectionUseDoc;
      return { ...base, usedConnectionId: doc.id };
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

/** Every ancestor group of `group`, `group` itself, and the site's own path (see `scope`). */
export function scopeOf(group: string, path: string): string[] {
  const labels = group ? group.split('/') : [];
  return [...labels.map((_, i) => labels.slice(0, i + 1).join('/')), path];
}

const exists = (field: keyof StreamDocument) => ({ [field]: { $exists: true } });

/** The orders of the site list (spec §5); `path` last, so paging is stable. Shared with the queries. */
export const SITE_SORTS = {
  date: { undated: 1, date: -1, updatedAt: -1, path: 1 },
  title: { titleLc: 1, path: 1 },
  slug: { slug: 1, path: 1 },
} as const satisfies Record<string, Record<string, 1 | -1>>;

/**
 * The listing's indexes: for each sort, one without a filter (it also holds `revision`, so
 * the list of matches is read from the index alone), one behind an exact tag and one behind a
 * group scope. Each starts with equalities (status, hidden: `$in` merges its two runs in
 * order) and ends with the sort's fields, so every listing is an index scan in the order
 * asked for, never a sort in memory. The text search filters the fetched documents.
 */
function listingIndexes(): IndexDescription[] {
  const out: IndexDescription[] = [];
  for (const [sort, fields] of Object.entries(SITE_SORTS)) {
    out.push({ name: siteListIndex('live', sort), key: { status: 1, hidden: 1, ...fields, revision: 1 } });
    out.push({ name: siteListIndex('tag', sort), key: { tags: 1, status: 1, hidden: 1, ...fields } });
    out.push({ name: siteListIndex('scope', sort), key: { scope: 1, status: 1, hidden: 1, ...fields } });
  }
  return out;
}

export const siteListIndex = (filter: 'live' | 'tag' | 'scope', sort: string): string => `sites_${filter}_by_${sort}`;

/**
 * Indexes of the `streams` collection: the listing's, the trash, the blob-reference
 * lookups and the key/connection/client lookups. Partial where only documents of one kind
 * carry the field. Every query of the adapter (mongo-queries.ts) names the index it uses.
 */
export const STREAM_INDEXES: IndexDescription[] = [
  { name: 'site_path', key: { path: 1 }, unique: true, partialFilterExpression: exists('path') },
  ...listingIndexes(),
  { name: 'sites_deleted', key: { status: 1, deletedAt: -1, path: 1 } },
  { name: 'sites_preview_expiry', key: { previewExpiresAt: 1, path: 1 }, partialFilterExpression: exists('previewExpiresAt') },
  // Not unique: the claim streams keep a domain on one site, and documents are written one at a time.
  { name: 'site_domains', key: { domains: 1 }, partialFilterExpression: exists('domains') },
  { name: 'retained_manifests', key: { manifests: 1 } },
  { name: 'retained_favicons', key: { favicons: 1 } },
  { name: 'key_id', key: { keyId: 1 }, unique: true, partialFilterExpression: exists('keyId') },
  { name: 'key_token', key: { tokenHash: 1 }, unique: true, partialFilterExpression: exists('tokenHash') },
  // Not partial: the join from a key to its usage stream ($lookup) may only use an index that
  // holds every document (the slot-based engine joins through such an index, else scans).
  { name: 'key_use', key: { usedKeyId: 1 } },
  { name: 'connection_id', key: { connectionId: 1 }, unique: true, partialFilterExpression: exists('connectionId') },
  { name: 'connections_by_created', key: { createdAt: 1, connectionId: 1 }, partialFilterExpression: exists('connectionId') },
  // Not partial, for the same reason as key_use.
  { name: 'connection_use', key: { usedConnectionId: 1 } },
  { name: 'client_id', key: { clientId: 1 }, unique: true, partialFilterExpression: exists('clientId') },
  { name: 'client_unused_expiry', key: { unusedExpiresAt: 1, clientId: 1 }, partialFilterExpression: exists('unusedExpiresAt') },
];

/** Indexes earlier versions made that nothing queries any more: dropped at start-up (each costs every write). */
export const OBSOLETE_STREAM_INDEXES = ['site_by_date', 'site_by_title', 'site_by_slug', 'site_tags', 'site_group', 'site_deleted'];

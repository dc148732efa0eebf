import type { Document, Filter, Sort } from 'mongodb';
import type { SiteQuery } from '../../projections/read-model.ts';
import { normalizedSearch } from './derive.ts';
import { SITE_SORTS, siteListIndex, type StreamDocument, type TreeDocument } from './mongo-documents.ts';

/**
 * Every query the MongoDB read model makes of its `streams` collection, with the index it
 * must use. The adapter runs them with that `hint`, and the contract suite runs `explain()`
 * on each against a real server (an index scan, never a collection scan or an in-memory
 * sort), so a query added here without an index fails a test instead of a deployment.
 */
export type FindSpec = {
  readonly filter: Filter<StreamDocument>;
  readonly sort?: Sort;
  /** The index the query is planned on. */
  readonly hint: string;
};

/** Characters a regular expression treats specially, and every control character (a NUL cannot travel inside a BSON regex). */
const SPECIAL = /[.*+?^${}()|[\]\\\u0000-\u001f\u007f]/g;

/** `text` as a regular expression source matching it literally; control characters as `\xHH`, so none is sent raw. */
export function literalPattern(text: string): string {
  return text.replace(SPECIAL, (c) => {
    const code = c.charCodeAt(0);
    return code < 0x20 || code === 0x7f ? `\\x${code.toString(16).padStart(2, '0')}` : `\\${c}`;
  });
}

/**
 * `listSites` as a MongoDB filter, sort and index: the same selection and order as the
 * SQLite adapter (substring search on lower-cased fields, exact tag, group subtree through
 * `scope`). The index is chosen by the most selective equality the query has (group, then
 * tag, else none), and always ends in the requested order.
 */
export function siteListQuery(query: SiteQuery): FindSpec {
  // `hidden` is always constrained (an $in when hidden sites are included) so the indexes' order applies.
  const filter: Filter<StreamDocument> = { status: 'live', hidden: query.includeHidden ? { $in: [false, true] } : false };
  if (query.group) filter.scope = query.group;
  if (query.tag !== undefined) filter.tags = query.tag;
  const q = normalizedSearch(query.q);
  if (q !== undefined) {
    const re = new RegExp(literalPattern(q));
    filter.$or = [{ titleLc: re }, { slug: re }, { grp: re }, { descLc: re }, { tagsLc: re }];
  }
  const by = query.group ? 'scope' : query.tag !== undefined ? 'tag' : 'live';
  return { filter, sort: SITE_SORTS[query.sort], hint: siteListIndex(by, query.sort) };
}

/** What `listSites` reads of each match: the index alone answers it when there is no filter but hidden. */
export const SITE_REF_PROJECTION: Document = { _id: 0, path: 1, revision: 1 };

/** What `siteMatches` reads of each match (`SiteRef`): no document. */
export const SITE_MATCH_PROJECTION: Document = { _id: 0, path: 1, group: '$grp', slug: 1, revision: 1 };

/** `siteMatches` among given sites: the listing's filter on those paths, by the unique path index. */
export const siteMatchesAmongQuery = (query: SiteQuery, paths: readonly string[]): FindSpec => ({
  filter: { ...siteListQuery(query).filter, path: { $in: [...paths] } },
  hint: siteByPathQuery('').hint,
});

export const siteByPathQuery = (path: string): FindSpec => ({ filter: { path }, hint: 'site_path' });

/** `siteByDomain`: the site whose `domains` holds this custom domain (spec §15). */
export const siteByDomainQuery = (domain: string): FindSpec => ({ filter: { domains: domain }, hint: 'site_domains' });

export const quarantinedQuery = (): FindSpec => ({ filter: { status: 'quarantined' }, sort: { deletedAt: -1, path: 1 }, hint: 'sites_deleted' });

export const keyByIdQuery = (id: number): FindSpec => ({ filter: { keyId: id }, hint: 'key_id' });
export const keyByTokenQuery = (tokenHash: string): FindSpec => ({ filter: { tokenHash }, hint: 'key_token' });
export const keysQuery = (): FindSpec => ({ filter: { keyId: { $exists: true } }, sort: { keyId: 1 }, hint: 'key_id' });

export const connectionByIdQuery = (id: string): FindSpec => ({ filter: { connectionId: id }, hint: 'connection_id' });
export const connectionsQuery = (): FindSpec => ({
  filter: { connectionId: { $exists: true } },
  sort: { createdAt: 1, connectionId: 1 },
  hint: 'connections_by_created',
});

export const clientByIdQuery = (clientId: string): FindSpec => ({ filter: { clientId }, hint: 'client_id' });

/** `listExpiredUnusedOAuthClients`: the same selection and order as the SQLite adapter. */
export const expiredUnusedClientsQuery = (by: string): FindSpec => ({
  filter: { unusedExpiresAt: { $exists: true, $lte: by } },
  sort: { unusedExpiresAt: 1, clientId: 1 },
  hint: 'client_unused_expiry',
});

/** `listSitesWithExpiredPreviews`: the same selection and order as the SQLite adapter. */
export const expiredPreviewsQuery = (by: string): FindSpec => ({
  filter: { previewExpiresAt: { $exists: true, $lte: by } },
  sort: { previewExpiresAt: 1, path: 1 },
  hint: 'sites_preview_expiry',
});

/**
 * The pipeline that answers key or connection lookups: the documents `spec` selects, each
 * with the last use its usage stream recorded (joined on `key_use` or `connection_use`), in
 * one round trip.
 */
export function withUsePipeline(kind: 'key' | 'connection', spec: FindSpec, from: string): Document[] {
  const [localField, foreignField] = kind === 'key' ? ['keyId', 'usedKeyId'] : ['connectionId', 'usedConnectionId'];
  return [
    { $match: spec.filter },
    ...(spec.sort ? [{ $sort: spec.sort }] : []),
    { $lookup: { from, localField, foreignField, as: 'use' } },
    { $project: { _id: 0, doc: 1, used: { $first: '$use.doc.lastUsedAt' } } },
  ];
}

/** A query of the `site_tree` collection (mongo-tree.ts), with its index. */
export type TreeFindSpec = { readonly filter: Filter<TreeDocument>; readonly sort?: Sort; readonly hint: string };

/** The tree's nodes written after `since` (every node when undefined). */
export const treeSinceQuery = (since: string | undefined): TreeFindSpec => ({ filter: since ? { version: { $gt: since } } : {}, hint: 'tree_version' });

/** The listing's version: the newest node version the checkpoint (its `key`) covers; read with limit 1. */
export const listingVersionQuery = (checkpointKey: string): TreeFindSpec => ({ filter: { version: { $lte: checkpointKey } }, sort: { version: -1 }, hint: 'tree_version' });

/** Every live site, hidden or not (the tree's rebuild): the unfiltered listing's index by slug. */
export const liveSitesQuery = (): FindSpec => ({ filter: { status: 'live', hidden: { $in: [false, true] } }, hint: siteListIndex('live', 'slug') });

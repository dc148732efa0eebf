import type { ConnectionDoc, KeyDoc, OAuthClientDoc, SiteDoc } from './documents.ts';
import type { VersionedTreeNode } from './site-tree.ts';

export type SiteSort = 'date' | 'title' | 'slug';

/** `GET /api/sites` after validation and defaults (spec §5). */
export type SiteQuery = {
  readonly q?: string;
  readonly tag?: string;
  /** Subtree: sites whose group is this or beneath it, plus the site whose full path equals it. */
  readonly group?: string;
  readonly sort: SiteSort;
  readonly includeHidden: boolean;
  readonly limit: number;
  readonly offset: number;
};

export type SiteListResult = {
  /** The requested page. */
  readonly page: readonly SiteDoc[];
  /** Number of live sites matching the filters, before paging. */
  readonly count: number;
  /** Every matching live site (not only the page), for the group tree. */
  readonly all: readonly SiteDoc[];
};

/** A live site as a filtered listing's tree places it: its address and the revision its document has. */
export type SiteRef = { readonly path: string; readonly group: string; readonly slug: string; readonly revision: number };

/** The group tree's nodes written after a version, and the version of the whole. */
export type SiteTreeChanges = {
  /** The listing's version ('' before any site): see `Queries.listingVersion`. */
  readonly version: string;
  readonly nodes: readonly VersionedTreeNode[];
};

/**
 * What the use cases read of the projected documents. Answers are as of the checkpoint the
 * projector last committed; `checkpoint()` names it, so an answer cached under it is exact
 * while it stays (app/queries/site-list-cache.ts says why).
 */
export interface Queries {
  /** Position of the last event applied, or undefined before the first. */
  checkpoint(): Promise<string | undefined>;

  /** The live or quarantined site at this full path. */
  getSite(path: string): Promise<SiteDoc | undefined>;
  listSites(query: SiteQuery): Promise<SiteListResult>;
  /** The page of `listSites(query)` alone: no count, no list of every match (an unfiltered listing takes those from the tree). */
  sitePage(query: SiteQuery): Promise<SiteDoc[]>;
  /**
   * Every live site `listSites(query)` matches, in any order, without its document (among
   * `paths` alone when given: a kept list of matches brought up to date with the sites that
   * changed): the tree of a filtered listing, which keeps the sites' bytes by path and
   * revision and fetches (`getSites`) only those it has not made before.
   */
  siteMatches(query: SiteQuery, paths?: readonly string[]): Promise<SiteRef[]>;
  /** The live or quarantined sites at these full paths, in any order; absent ones left out. */
  getSites(paths: readonly string[]): Promise<SiteDoc[]>;
  /**
   * The version of everything `GET /api/sites` shows: the position key of the last batch
   * that changed a live site (each such batch rewrites a node of the group tree), '' before
   * any. It moves with every listed change and only then, so an answer kept under it is
   * exact while it stays, and it stays while events that list nothing (key uses, the trash)
   * move the checkpoint. Only versions the checkpoint covers count.
   */
  listingVersion(): Promise<string>;
  /**
   * The nodes of the listing's group tree (projections/site-tree.ts) written after `since`
   * (every node when undefined), as of `version`. A node that lost its last site is not
   * reported: its parent, rewritten in the same batch, no longer names it.
   */
  siteTree(since?: string): Promise<SiteTreeChanges>;
  /** Quarantined sites, most recently deleted first. */
  listQuarantined(): Promise<SiteDoc[]>;
  /**
   * The live or quarantined site a custom domain is attached to (spec §15): an indexed
   * equality lookup, what serving a custom domain and the TLS ask read. `domain` as stored
   * (lower case, no trailing dot).
   */
  siteByDomain(domain: string): Promise<SiteDoc | undefined>;

  getKey(id: number): Promise<KeyDoc | undefined>;
  /** Looks a key up by the SHA-256 of its token (an indexed equality lookup: no timing leak on the token). */
  getKeyByTokenHash(tokenHash: string): Promise<KeyDoc | undefined>;
  listKeys(): Promise<KeyDoc[]>;

  getConnection(id: string): Promise<ConnectionDoc | undefined>;
  listConnections(): Promise<ConnectionDoc[]>;
  getOAuthClient(clientId: string): Promise<OAuthClientDoc | undefined>;
  /**
   * OAuth clients never used for a consent whose `unusedExpiresAt` is at or before `by` (an
   * ISO-8601 UTC time), earliest first (then by client id), at most `limit`: the candidates
   * of the expiry job. An indexed range query in every adapter.
   */
  listExpiredUnusedOAuthClients(by: string, limit: number): Promise<OAuthClientDoc[]>;
  /**
   * Sites (live or in the trash) with a preview whose `expiresAt` is at or before `by` (an
   * ISO-8601 UTC time), the earliest expiry first (then by path), at most `limit`: the
   * candidates of the preview expiry job (spec §14). An indexed range query in every adapter.
   */
  listSitesWithExpiredPreviews(by: string, limit: number): Promise<SiteDoc[]>;
}

import type { Recorded } from '../domain/events.ts';
import type { ConnectionDoc, KeyDoc, OAuthClientDoc, SiteDoc } from './documents.ts';

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

/**
 * The read model: documents built by the projections of projections/project.ts, the
 * queries the API makes, and the small pieces of coordination state that must be shared
 * by every service instance (projection checkpoint, projector lease, manifest index).
 * Adapters: SQLite (embedded) and MongoDB. Every adapter passes test/contracts.
 */
export interface ReadModel {
  /** Position of the last event applied, or undefined before the first. */
  checkpoint(): Promise<string | undefined>;
  /**
   * Applies a batch with `projectBatch` and stores `checkpoint`, atomically: after a crash
   * either both are stored or neither. Events already applied (per-stream revision) are skipped.
   */
  apply(events: readonly Recorded[], checkpoint: string): Promise<void>;
  /** Last revision of `stream` applied to the read model, -1 when none: read-your-writes waits on it. */
  streamRevision(stream: string): Promise<number>;

  /** The live or quarantined site at this full path. */
  getSite(path: string): Promise<SiteDoc | undefined>;
  listSites(query: SiteQuery): Promise<SiteListResult>;
  /** Quarantined sites, most recently deleted first. */
  listQuarantined(): Promise<SiteDoc[]>;

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
   * Records which blobs a manifest lists. Content-derived (a manifest never changes), so it
   * is idempotent, written by the publish handler, and kept by `reset()`.
   */
  indexManifest(manifest: string, blobs: readonly string[]): Promise<void>;
  /**
   * The subset of `candidates` still referenced by a retained revision (live or archived,
   * of a live or quarantined site): as a file of its manifest, its manifest, or its favicon.
   */
  referencedBlobs(candidates: readonly string[]): Promise<Set<string>>;

  /** Takes or renews the named lease for `ttlMs`; false when another holder has it. */
  tryLease(name: string, holder: string, ttlMs: number): Promise<boolean>;
  releaseLease(name: string, holder: string): Promise<void>;

  /** Drops every projected document and the checkpoint (for `sites replay`). */
  reset(): Promise<void>;
  close(): Promise<void>;
}

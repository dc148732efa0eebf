import type { Deploy, DeployBlob, DeployStatus, UploadRecord } from '../domain/deploy/deploy.ts';
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
 * A projection batch that spans several reads of the log (catch-up and replay): events
 * are folded into the documents they touch in memory, and `commit` stores each touched
 * document once, with the checkpoint. Memory grows with the streams touched, not the
 * events (the caller bounds it with `streams`); nothing is stored before `commit`.
 */
export type ProjectionBatch = {
  /** The checkpoint when the batch began: its first event must follow it. */
  readonly from: string | undefined;
  /** Number of streams the batch holds in memory. */
  readonly streams: number;
  /** Folds the next events of the log into the batch (loading the records it lacks). Skips events already applied. */
  add(events: readonly Recorded[]): Promise<void>;
  /**
   * Stores every document the batch changed and `checkpoint` (the position of the last
   * event added), with the same guarantees as `apply`. Refused when another projector
   * moved the checkpoint since the batch began: the checkpoint stays where that one put
   * it, and projecting goes on from there (a document the refused batch may have written
   * first is one the log produces anyway, never older than the stored one).
   */
  commit(checkpoint: string): Promise<void>;
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
  /** Starts a batch at the current checkpoint (see ProjectionBatch): what catch-up and replay use. */
  beginBatch(): Promise<ProjectionBatch>;
  /**
   * Last revision of `stream` applied to the read model and committed with a checkpoint, -1
   * when none: read-your-writes waits on it, so once it answers, `checkpoint()` covers the
   * events and caches keyed by the checkpoint see them.
   */
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
   * of a live or quarantined site): as a file of its manifest, its manifest, or its favicon;
   * or by a deploy that has not been deleted yet: as a digest of its manifest, or that manifest.
   */
  referencedBlobs(candidates: readonly string[]): Promise<Set<string>>;

  /**
   * Incremental deploys (spec §10): short-lived state shared by every instance, like the
   * leases, and not projected (`reset()` keeps them). A deploy's record and its distinct
   * digests are written together; while the record exists its digests and manifest count
   * as referenced (`referencedBlobs`), so garbage collection keeps what it uploaded.
   */
  createDeploy(deploy: Deploy, blobs: readonly DeployBlob[]): Promise<void>;
  getDeploy(id: string): Promise<Deploy | undefined>;
  /** One digest of a deploy's manifest, or undefined when the manifest does not list it. */
  getDeployBlob(id: string, hash: string): Promise<DeployBlob | undefined>;
  /** Every distinct digest of a deploy's manifest. */
  listDeployBlobs(id: string): Promise<DeployBlob[]>;
  /**
   * Records that a required digest was uploaded with `size` bytes, adding them to the
   * deploy's `uploadedBytes` only if the total stays at most `maxBytes`: one atomic
   * conditional increment, so concurrent uploads (on any instance) cannot pass the limit
   * together. A digest is counted once: `already` when it was counted before or is not
   * required; `over_limit` changes nothing; `closed` when the deploy is gone or not open.
   */
  recordDeployUpload(id: string, hash: string, size: number, maxBytes: number): Promise<UploadRecord>;
  /** Moves a deploy from `from` to `to` (compare-and-set); false when it was not at `from`. */
  setDeployStatus(id: string, from: DeployStatus, to: DeployStatus, revision?: string): Promise<boolean>;
  /** Deploys whose `expiresAt` is at or before `by` (ISO-8601 UTC), earliest first, at most `limit`. */
  listExpiredDeploys(by: string, limit: number): Promise<Deploy[]>;
  /** Deletes a deploy and its digests; its blobs are then only as referenced as anything else. */
  deleteDeploy(id: string): Promise<void>;

  /** Takes or renews the named lease for `ttlMs`; false when another holder has it. */
  tryLease(name: string, holder: string, ttlMs: number): Promise<boolean>;
  releaseLease(name: string, holder: string): Promise<void>;

  /** Drops every projected document and the checkpoint (for `sites replay`). */
  reset(): Promise<void>;
  close(): Promise<void>;
}

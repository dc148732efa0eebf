import type { Readable } from 'node:stream';
import type { DomainEvent, EventMeta, Recorded } from './events.ts';

// ---------------------------------------------------------------------------
// Event store
// ---------------------------------------------------------------------------

/** `-1`: the stream must not exist yet; `n`: the stream's last event must have revision `n`. */
export type ExpectedRevision = number;

export type EventToAppend = DomainEvent & { readonly meta: EventMeta };

/**
 * The append-only log. Adapters: SQLite (embedded) and EventStoreDB.
 * Revisions are 0-based per stream; positions are opaque, adapter-encoded strings
 * that only the same adapter interprets (they are stored as projection checkpoints).
 */
export interface EventStore {
  /** All events of one stream, oldest first; `revision` is the last one's revision, -1 when the stream is missing. */
  readStream(stream: string): Promise<{ events: Recorded[]; revision: number }>;
  /** The revision of a stream's last event (-1 when missing), without reading the stream. */
  streamRevision(stream: string): Promise<number>;
  /**
   * Appends atomically when the stream is at `expected`; otherwise throws
   * `StreamConflictError` and writes nothing. Returns the revision of the last appended event.
   */
  append(stream: string, events: readonly EventToAppend[], expected: ExpectedRevision): Promise<{ revision: number; position: string }>;
  /**
   * Up to `limit` events of every stream after `after` (undefined = from the start), in
   * global order, system events excluded. Never splits one append across two results
   * unless that append alone is larger than `limit`.
   */
  readAll(after: string | undefined, limit: number): Promise<Recorded[]>;
  /**
   * Resolves when events after `after` may exist, or after `timeoutMs` at the latest.
   * Lets the projector sleep instead of spinning; appends from other processes are
   * noticed by the adapter (polling or a server-side subscription).
   */
  waitForEvents(after: string | undefined, timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------
// Blob store (content-addressed files)
// ---------------------------------------------------------------------------

export type PutResult = {
  /** Lower-case hex SHA-256 of the content. */
  readonly hash: string;
  readonly size: number;
  /** False when a blob with this hash was already stored (nothing was written or sent). */
  readonly created: boolean;
};

export type ByteRange = { readonly start: number; readonly end: number }; // inclusive, like HTTP

/**
 * Blobs stored once under their SHA-256, whatever the number of sites and revisions
 * using them. Adapters: a local folder (embedded) and MinIO / any S3.
 */
export interface BlobStore {
  /**
   * Streams `source` in, hashing on the way, and stores it under its hash (once). With
   * `expected`, the content's SHA-256 must be that digest: otherwise nothing becomes
   * visible (checked before the blob is linked or uploaded) and it throws `ValidationError`.
   */
  put(source: Readable | AsyncIterable<Uint8Array>, expected?: string): Promise<PutResult>;
  /** Stores a small in-memory value (manifests, favicons). */
  putBytes(bytes: Uint8Array): Promise<PutResult>;
  has(hash: string): Promise<boolean>;
  /** Size of a stored blob, or undefined when missing. */
  stat(hash: string): Promise<{ size: number } | undefined>;
  /** Streams a blob (or one inclusive byte range of it); undefined when missing. */
  get(hash: string, range?: ByteRange): Promise<Readable | undefined>;
  /** Reads a whole blob into memory: only for small blobs (manifests, index.html, favicons). */
  getBytes(hash: string): Promise<Buffer | undefined>;
  /** Deletes a blob; deleting a missing blob is not an error. */
  delete(hash: string): Promise<void>;
  /** Every stored hash, for a full garbage-collection pass. */
  list(): AsyncIterable<string>;
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------
// Outbound HTTP (everything the service fetches itself)
// ---------------------------------------------------------------------------

/** Why an outbound request was not sent, or not answered in full. */
export type OutboundRefusal = {
  /**
   * `url`: not an absolute URL, or one with user info; `scheme`: not https (http only with
   * the private switch); `address`: the host is, or resolves to, a non-public address;
   * `dns`: the name does not resolve; `busy`: too many name lookups are in flight (refused
   * at once, not queued: try again later); `timeout`; `too_large`: the answer is over the
   * bound; `network`: connection, TLS or protocol failure.
   */
  readonly reason: 'url' | 'scheme' | 'address' | 'dns' | 'busy' | 'timeout' | 'too_large' | 'network';
  /** One sentence for logs, delivery records and error pages. */
  readonly message: string;
};

export type OutboundRequest = {
  readonly url: string;
  readonly method?: 'GET' | 'POST';
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: Uint8Array | string;
  /** Lower than the client's own bound only: a request can shrink the limits, never widen them. */
  readonly maxBytes?: number;
  readonly timeoutMs?: number;
};

/** An answer as received: redirects are not followed, so a 3xx comes back as it is. */
export type OutboundResponse = {
  readonly status: number;
  /** Lower-case names; repeated headers joined with `, `. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Uint8Array;
};

/**
 * The one way the service makes HTTP requests of its own (webhook deliveries, OAuth client
 * metadata documents). An adapter (host/outbound/) refuses destinations on the service's
 * own network after DNS resolution and connects to the address it checked, follows no
 * redirects, and bounds time and size. Each instance has one policy, set by the
 * composition root (which switch allows private addresses): callers cannot widen it.
 */
export interface OutboundHttp {
  /** Checks a URL's scheme and where its host resolves now, sending nothing (e.g. when a webhook is created). */
  check(url: string): Promise<OutboundRefusal | undefined>;
  request(req: OutboundRequest): Promise<{ ok: true; response: OutboundResponse } | { ok: false; refusal: OutboundRefusal }>;
}

import type { DomainEvent, EventMeta, Recorded } from '../events.ts';

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


import type { Readable } from 'node:stream';

export type PutResult = {
  /** Lower-case hex SHA-256 of the content. */
  readonly hash: string;
  readonly size: number;
  /** False when a blob with this hash was already stored (nothing was written or sent). */
  readonly created: boolean;
};

/**
 * A small archive entry as the archive stores it, with what the archive declares of its
 * content. Handed to the store as is, so a store with writer threads inflates there and the
 * thread reading the upload allocates nothing per file.
 */
export type Archived = {
  /** Valid only until the archive's next entry is asked for: copy it or use it before. */
  readonly bytes: Uint8Array;
  readonly deflated: boolean;
  readonly size: number;
  readonly crc32: number;
  /** The error to reject with when the content is not what the archive declares. */
  readonly corrupt: (reason: string) => Error;
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
  /**
   * Stores an archive entry as the archive holds it (raw deflate data or the content itself),
   * copying `archived.bytes` before it returns: the store inflates it, checks its size and
   * CRC-32 against what the archive declares, hashes and stores it. Content that is not what
   * was declared stores nothing and rejects with `archived.corrupt(reason)`. Every store
   * takes archived writes: the folder store on its writer threads, S3 on the calling thread.
   */
  putArchived(archived: Archived): Promise<PutResult>;
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

import type { IncomingFile } from '../../app/publish/store-files.ts';

/** Limits enforced while an archive streams (spec §4: SITES_MAX_EXTRACT_*). */
export type ArchiveLimits = { maxEntries: number; maxBytes: number };

/**
 * Entries up to this size are read whole and handed over as one buffer; larger ones stream.
 * Most files of a site are this small. (The same size as the store's small-file path.)
 */
export const SMALL_ENTRY = 256 * 1024;

/**
 * One regular file of an archive: its normalised relative POSIX path and its content: a
 * stream (large entries), bytes handed over whole (small tar entries, see `handOver`), or a
 * small zip entry as the archive stores it (`archived`, for `BlobStore.putArchived`).
 */
export type ArchiveEntry = IncomingFile;

/**
 * The bytes of a small entry, yielded once and then forgotten. A stream over them
 * (`Readable.from([bytes])`) would keep them reachable until the next entry is asked for,
 * which comes only after the consumer has waited for a free writer: long enough for the
 * buffer to be promoted to V8's old generation, where only a full collection frees it.
 * Measured on a 100 MB zip: live and dead buffers during extraction went from 30–40 MB to
 * a flat 8 MB, and the publish's peak RSS from 137–159 MB to 133 MB.
 */
export function handOver(bytes: Buffer): AsyncIterable<Buffer> {
  let held: Buffer | undefined = bytes;
  return {
    [Symbol.asyncIterator]: () => ({
      next: async (): Promise<IteratorResult<Buffer, undefined>> => {
        const value = held;
        held = undefined;
        return value ? { value, done: false } : { value: undefined, done: true };
      },
      return: async (): Promise<IteratorResult<Buffer, undefined>> => {
        held = undefined;
        return { value: undefined, done: true };
      },
    }),
  };
}

export type ArchiveFormat = 'tar.gz' | 'zip';

import { Transform } from 'node:stream';
import { crc32 } from 'node:zlib';
import { DomainError, TooLargeError, ValidationError } from '../../domain/errors.ts';
import type { ArchiveLimits } from './types.ts';
import { shown } from './paths.ts';

/**
 * The running totals of one archive. Sizes declared in headers are never trusted:
 * only bytes actually produced by the decompressor are counted, chunk by chunk.
 */
export type Budget = {
  readonly limits: ArchiveLimits;
  entries: number;
  bytes: number;
  /** Set once a limit is passed; every later step rethrows it. */
  error?: TooLargeError;
  /** Tears the whole reading pipeline down, so a bomb stops decompressing at once. */
  readonly abort: (error: Error) => void;
};

export function createBudget(limits: ArchiveLimits, abort: (error: Error) => void): Budget {
  return { limits, entries: 0, bytes: 0, abort };
}

/** Counts one more entry (files and directories alike); throws TooLargeError past the limit. */
export function countEntry(budget: Budget, raw: string): void {
  budget.entries += 1;
  if (budget.entries > budget.limits.maxEntries) {
    throw new TooLargeError(
      `the archive has more than ${budget.limits.maxEntries} entries (entry ${shown(raw)} is one too many)`,
    );
  }
}

/** Adds produced bytes; past the limit it records the error, aborts the pipeline and returns the error. */
export function addBytes(budget: Budget, count: number, path: string): TooLargeError | undefined {
  if (budget.error) return budget.error;
  budget.bytes += count;
  if (budget.bytes <= budget.limits.maxBytes) return undefined;
  budget.error = new TooLargeError(
    `the archive expands to more than ${budget.limits.maxBytes} bytes (limit passed while extracting ${shown(path)})`,
  );
  budget.abort(budget.error);
  return budget.error;
}

/** Any failure of the decompressor or parser becomes a 400 naming the problem; typed errors pass through. */
export function archiveError(error: unknown, format: string): DomainError {
  if (error instanceof DomainError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new ValidationError(`the ${format} archive is truncated or corrupt: ${message}`);
}

/**
 * The stream handed to the consumer for one entry: passes bytes through while counting
 * them against the budget, and errors (before emitting the chunk that passes the limit)
 * as soon as the archive's running total goes over `maxBytes`. With `expectedCrc32`
 * (zip, where the central directory declares it) the content is also checked at its end.
 */
export function countingTransform(budget: Budget, path: string, expectedCrc32?: number): Transform {
  let crc = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      const error = addBytes(budget, chunk.length, path);
      if (error) return callback(error);
      if (expectedCrc32 !== undefined) crc = crc32(chunk, crc);
      callback(null, chunk);
    },
    flush(callback) {
      if (expectedCrc32 !== undefined && crc !== expectedCrc32) {
        return callback(new ValidationError(`the zip archive is corrupt: entry ${shown(path)} fails its CRC-32 check`));
      }
      callback();
    },
  });
}

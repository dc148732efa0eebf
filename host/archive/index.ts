import type { Readable } from 'node:stream';
import { UnsupportedMediaTypeError } from '../../domain/errors.ts';
import type { FileContent } from '../../app/publish/store-files.ts';
import { unpackArchived } from '../blobs/unpack-archived.ts';
import { peek } from './peek.ts';
import { readTarGz } from './tar.ts';
import { handOver, type ArchiveEntry, type ArchiveFormat, type ArchiveLimits } from './types.ts';
import { readZip } from './zip.ts';

export type { ArchiveEntry, ArchiveFormat, ArchiveLimits } from './types.ts';
export { normaliseEntryPath } from './paths.ts';

/**
 * An entry's bytes, whatever form it came in: an archived one is inflated and checked here
 * (as a store without writer threads does). For readers other than the file store.
 */
export function readContent(content: FileContent): AsyncIterable<Uint8Array> {
  switch (content.kind) {
    case 'stream':
      return content.source;
    case 'archived': {
      let bytes: Buffer;
      try {
        bytes = unpackArchived(content.archived);
      } catch (error) {
        return { [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(error) }) };
      }
      return handOver(bytes);
    }
    case 'stored':
      throw new Error('an archive entry is never already stored');
  }
}

/**
 * The archive format from its first bytes (never from a file name): gzip `1f 8b` is a
 * tar.gz, `PK\3\4` (or `PK\5\6`, an empty zip) is a zip.
 */
export function detectFormat(firstBytes: Buffer): ArchiveFormat | undefined {
  if (firstBytes.length >= 2 && firstBytes[0] === 0x1f && firstBytes[1] === 0x8b) return 'tar.gz';
  if (firstBytes.length >= 4 && firstBytes[0] === 0x50 && firstBytes[1] === 0x4b) {
    if (firstBytes[2] === 0x03 && firstBytes[3] === 0x04) return 'zip';
    if (firstBytes[2] === 0x05 && firstBytes[3] === 0x06) return 'zip';
  }
  return undefined;
}

/**
 * Detects the format from the first bytes (gzip 1f 8b → tar.gz; "PK\x03\x04" (or empty zip "PK\x05\x06") → zip;
 * anything else → UnsupportedMediaTypeError), then yields every regular file entry: in archive order,
 * except that a zip's small entries come while its upload arrives and the others after them.
 * The consumer must fully read (or destroy) each entry's `content` before asking for the next one.
 * Paths are normalised relative POSIX paths ("a/b.css"; leading "./" removed); directory entries are not yielded
 * but count toward maxEntries.
 *
 * Bad entries (escaping paths, links, devices, NUL/backslash/empty names, duplicates) and
 * corrupt archives throw ValidationError; more than `maxEntries` entries or more than
 * `maxBytes` extracted bytes (counted as produced, while streaming) throw TooLargeError,
 * and the entry being read errors with it too. On any error, and when the consumer stops
 * early (`return()`), every stream is destroyed and the zip spool file in `tmpDir` removed.
 * An entry's content not fully read when the next one is asked for is discarded.
 */
export async function* readArchive(
  source: Readable,
  limits: ArchiveLimits,
  tmpDir: string,
): AsyncGenerator<ArchiveEntry> {
  try {
    const { head, body } = await peek(source, 4);
    const format = detectFormat(head);
    if (!format) {
      await body.return();
      throw new UnsupportedMediaTypeError('the bundle is neither a .tar.gz nor a .zip archive');
    }
    yield* format === 'tar.gz' ? readTarGz(body, limits) : readZip(body, limits, tmpDir);
  } finally {
    source.destroy();
  }
}

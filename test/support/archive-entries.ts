import type { Readable } from 'node:stream';
import { readArchive as readEntries, readContent, type ArchiveLimits } from '../../host/archive/index.ts';

/**
 * The archive reader with every entry's content as bytes to read, whatever form the reader
 * handed it over in (a small zip entry comes archived, for the file store to inflate): what
 * the archive tests check.
 */
export async function* readArchive(source: Readable, limits: ArchiveLimits, tmpDir: string): AsyncGenerator<{ path: string; content: AsyncIterable<Buffer> }> {
  for await (const entry of readEntries(source, limits, tmpDir)) yield { path: entry.path, content: readContent(entry.content) as AsyncIterable<Buffer> };
}

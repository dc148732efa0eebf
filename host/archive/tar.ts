import { Readable, type Transform } from 'node:stream';
import { createGunzip } from 'node:zlib';
import tar from 'tar-stream';
import { ValidationError } from '../../domain/errors.ts';
import { addBytes, archiveError, countEntry, countingTransform, createBudget, type Budget } from './budget.ts';
import { createPathRegistry, shown } from './paths.ts';
import { handOver, SMALL_ENTRY, type ArchiveEntry, type ArchiveLimits } from './types.ts';

/** The entry stream tar-stream hands out (a streamx Readable with the parsed header). */
type TarSource = AsyncIterable<Buffer> & {
  header: tar.Header;
  on(event: string, listener: (...args: any[]) => void): unknown;
  pause(): unknown;
  resume(): unknown;
};

const FORBIDDEN_TYPES: Record<string, string> = {
  symlink: 'a symbolic link',
  link: 'a hard link',
  'character-device': 'a character device',
  'block-device': 'a block device',
  fifo: 'a FIFO',
};

/**
 * Streams a gzip-compressed tar: body → gunzip → tar-stream extract, one entry at a
 * time. Nothing is buffered beyond the streams' high-water marks and, for an entry of at
 * most SMALL_ENTRY bytes, that entry (handed over whole).
 */
export async function* readTarGz(body: AsyncIterable<Buffer>, limits: ArchiveLimits): AsyncGenerator<ArchiveEntry> {
  const input = Readable.from(body, { objectMode: false });
  // Large output chunks: each chunk is one thread-pool round trip, and that pool is busy storing files.
  const gunzip = createGunzip({ chunkSize: 128 * 1024 });
  const extract = tar.extract();
  let failure: Error | undefined;
  const fail = (error: Error): void => {
    failure ??= error;
    extract.destroy(failure);
    gunzip.destroy();
    input.destroy();
  };
  const budget = createBudget(limits, fail);
  const registry = createPathRegistry();
  input.on('error', (error) => fail(archiveError(error, 'tar.gz')));
  gunzip.on('error', (error) => fail(archiveError(error, 'tar.gz')));
  extract.on('error', () => {}); // surfaced by the iterator below
  input.pipe(gunzip).pipe(extract as unknown as NodeJS.WritableStream);

  let content: Transform | undefined;
  try {
    const entries = (extract as unknown as AsyncIterable<TarSource>)[Symbol.asyncIterator]();
    for (;;) {
      let next: IteratorResult<TarSource>;
      try {
        next = await entries.next();
      } catch (error) {
        throw failure ?? archiveError(error, 'tar.gz');
      }
      if (next.done) break;
      const source = next.value;
      const { name, type } = source.header;
      countEntry(budget, name);
      if (type === 'directory') {
        registry.addDirectory(name);
        source.resume();
        continue;
      }
      if (type !== 'file' && type !== 'contiguous-file') {
        const what = (type && FORBIDDEN_TYPES[type]) ?? `of an unsupported type (${String(type)})`;
        throw new ValidationError(`archive entry ${shown(name)} is ${what}; only regular files and directories are allowed`);
      }
      const path = registry.addFile(name);
      if ((source.header.size ?? 0) <= SMALL_ENTRY) {
        // Read whole and handed over: no stream per file between the parser and the store.
        let bytes: Buffer;
        try {
          bytes = await readSmallEntry(source, budget, path);
        } catch (error) {
          throw budget.error ?? failure ?? archiveError(error, 'tar.gz');
        }
        yield { path, content: { kind: 'stream', source: handOver(bytes) } };
        continue;
      }
      content = countingTransform(budget, path);
      const done = forward(source, content, budget, path);
      done.catch(() => {}); // awaited below; must not count as unhandled meanwhile
      yield { path, content: { kind: 'stream', source: content } };
      // The consumer asked for the next entry: whatever it left unread is skipped (still counted).
      if (!content.readableEnded) content.destroy();
      try {
        await done;
      } catch (error) {
        throw budget.error ?? failure ?? archiveError(error, 'tar.gz');
      }
      if (budget.error) throw budget.error;
      content = undefined;
    }
    if (failure) throw failure;
  } finally {
    content?.destroy();
    extract.destroy();
    gunzip.destroy();
    input.destroy();
  }
}

/**
 * One small entry, whole (the header declares at most SMALL_ENTRY bytes, and the parser
 * delivers exactly the declared size): its chunks, counted against the byte budget as
 * they come, joined only when there is more than one.
 */
function readSmallEntry(source: TarSource, budget: Budget, path: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let ended = false;
    source.on('data', (chunk: Buffer) => {
      const overBudget = addBytes(budget, chunk.length, path);
      if (overBudget) return reject(overBudget);
      chunks.push(chunk);
      size += chunk.length;
    });
    source.on('end', () => {
      ended = true;
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    });
    source.on('error', (error: Error) => reject(archiveError(error, 'tar.gz')));
    source.on('close', () => {
      if (!ended) reject(budget.error ?? new ValidationError(`the tar.gz archive ended inside entry ${shown(path)}`));
    });
  });
}

/**
 * Feeds one tar entry into the consumer's counting stream with back-pressure. Resolves
 * once the entry's bytes have all left the tar parser, which is what lets it move on.
 * If the consumer destroys its stream, the rest is drained, still counted.
 */
function forward(source: TarSource, content: Transform, budget: Budget, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let ended = false;
    source.on('data', (chunk: Buffer) => {
      if (content.destroyed) {
        addBytes(budget, chunk.length, path);
        return;
      }
      if (!content.write(chunk)) source.pause();
    });
    content.on('drain', () => source.resume());
    content.on('close', () => source.resume());
    content.on('error', () => {}); // the consumer sees it through its own read; don't crash here
    source.on('end', () => {
      ended = true;
      if (!content.destroyed) content.end();
      resolve();
    });
    source.on('error', (error: Error) => {
      content.destroy(archiveError(error, 'tar.gz'));
      reject(error);
    });
    source.on('close', () => {
      if (ended) return;
      const error = budget.error ?? new ValidationError(`the tar.gz archive ended inside entry ${shown(path)}`);
      content.destroy(error);
      reject(error);
    });
  });
}

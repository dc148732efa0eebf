import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { ValidationError } from '../../domain/errors.ts';
import { addBytes, archiveError, countEntry, createBudget, type Budget } from './budget.ts';
import { createPathRegistry, shown } from './paths.ts';
import { TarParser, type TarEvent } from './tar-parser.ts';
import { handOver, SMALL_ENTRY, type ArchiveEntry, type ArchiveLimits } from './types.ts';

const FORBIDDEN_TYPES: Record<string, string> = {
  symlink: 'a symbolic link',
  link: 'a hard link',
  'character-device': 'a character device',
  'block-device': 'a block device',
  fifo: 'a FIFO',
};

/**
 * Streams a gzip-compressed tar: body → gunzip → tar-parser.ts, one entry at a time,
 * pulled as the consumer asks. Nothing is buffered beyond the streams' high-water marks
 * and, for an entry of at most SMALL_ENTRY bytes, that entry (handed over whole: usually a
 * view of the decompressed chunk it lies in).
 */
export async function* readTarGz(body: AsyncIterable<Buffer>, limits: ArchiveLimits): AsyncGenerator<ArchiveEntry> {
  const input = Readable.from(body, { objectMode: false });
  // Large output chunks: each chunk is one thread-pool round trip, and that pool is busy storing files.
  const gunzip = createGunzip({ chunkSize: 128 * 1024 });
  let failure: Error | undefined;
  const fail = (error: Error): void => {
    failure ??= error;
    gunzip.destroy();
    input.destroy();
  };
  const budget = createBudget(limits, fail);
  const registry = createPathRegistry();
  input.on('error', (error) => fail(archiveError(error, 'tar.gz')));
  gunzip.on('error', (error) => fail(archiveError(error, 'tar.gz')));
  input.pipe(gunzip);
  const events = tarEvents(gunzip, () => failure);

  let content: EntryStream | undefined;
  try {
    for (;;) {
      const event = await events.next();
      if (!event) break;
      // Every data piece is taken by the entry it belongs to: what comes here is a header.
      const { name, type, size } = event.header!;
      countEntry(budget, name);
      if (type === 'directory') {
        registry.addDirectory(name);
        continue;
      }
      if (type !== 'file' && type !== 'contiguous-file') {
        const what = (type && FORBIDDEN_TYPES[type]) ?? `of an unsupported type (${String(type)})`;
        throw new ValidationError(`archive entry ${shown(name)} is ${what}; only regular files and directories are allowed`);
      }
      const path = registry.addFile(name);
      if (size <= SMALL_ENTRY) {
        // Read whole and handed over: no stream per file between the parser and the store.
        yield { path, content: handOver(await readSmallEntry(events, size, budget, path)) };
        continue;
      }
      content = new EntryStream(events, size, budget, path);
      yield { path, content };
      // The consumer asked for the next entry: whatever it left unread is skipped (still counted).
      await content.finish();
      if (budget.error) throw budget.error;
      content = undefined;
    }
    if (failure) throw failure;
  } finally {
    content?.destroy();
    gunzip.destroy();
    input.destroy();
  }
}

type Events = { next(): Promise<TarEvent | undefined> };

/** The parser's events over the decompressed stream; undefined once the archive has ended cleanly. */
function tarEvents(gunzip: AsyncIterable<Buffer>, failed: () => Error | undefined): Events {
  const chunks = gunzip[Symbol.asyncIterator]();
  const parser = new TarParser();
  let ended = false;
  return {
    async next() {
      for (;;) {
        let event: TarEvent | undefined;
        try {
          event = parser.next();
        } catch (error) {
          throw archiveError(error, 'tar.gz');
        }
        if (event) return event;
        if (ended) return undefined;
        let read: IteratorResult<Buffer>;
        try {
          read = await chunks.next();
        } catch (error) {
          throw failed() ?? archiveError(error, 'tar.gz');
        }
        const failure = failed();
        if (failure) throw failure;
        if (read.done) {
          ended = true;
          try {
            parser.end();
          } catch (error) {
            throw archiveError(error, 'tar.gz');
          }
          return undefined;
        }
        parser.feed(read.value);
      }
    },
  };
}

/** The next piece of an entry's data, counted against the byte budget. */
async function nextPiece(events: Events, budget: Budget, path: string): Promise<Buffer> {
  const event = await events.next();
  if (!event?.data) throw budget.error ?? new ValidationError(`the tar.gz archive ended inside entry ${shown(path)}`);
  const overBudget = addBytes(budget, event.data.length, path);
  if (overBudget) throw overBudget;
  return event.data;
}

/**
 * One small entry, whole (its header declares at most SMALL_ENTRY bytes, and exactly that
 * many follow): the one piece it usually is, or its pieces joined.
 */
async function readSmallEntry(events: Events, size: number, budget: Budget, path: string): Promise<Buffer> {
  if (size === 0) return Buffer.alloc(0);
  const first = await nextPiece(events, budget, path);
  if (first.length === size) return first;
  const pieces = [first];
  for (let got = first.length; got < size; ) {
    const piece = await nextPiece(events, budget, path);
    pieces.push(piece);
    got += piece.length;
  }
  return Buffer.concat(pieces, size);
}

/**
 * A large entry's content, pulled from the parser as the consumer reads. When the consumer
 * moves on (or destroys it) `finish` drains what is left, still counted, so the parser
 * stands at the next header.
 */
class EntryStream extends Readable {
  private left: number;
  private reading: Promise<void> = Promise.resolve();

  constructor(
    private readonly events: Events,
    size: number,
    private readonly budget: Budget,
    private readonly path: string,
  ) {
    super({ highWaterMark: 256 * 1024 });
    this.left = size;
  }

  override _read(): void {
    this.reading = nextPiece(this.events, this.budget, this.path).then(
      (piece) => {
        this.left -= piece.length;
        this.push(piece);
        if (this.left === 0) this.push(null);
      },
      (error: Error) => {
        this.destroy(error);
      },
    );
  }

  async finish(): Promise<void> {
    if (!this.readableEnded) this.destroy();
    await this.reading;
    while (this.left > 0) this.left -= (await nextPiece(this.events, this.budget, this.path)).length;
  }
}

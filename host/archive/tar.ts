import { Readable, type Writable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { TooLargeError, ValidationError } from '../../domain/errors.ts';
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
 * pulled as the consumer asks. What is held at once is bounded: two GUNZIP_IN pieces of
 * upload, INFLATED_AHEAD of inflated tar plus the GUNZIP_OUT chunk that passed it (gunzip is
 * paused after it) and zlib's own readable buffer, the chunk being parsed, and for an entry of
 * at most SMALL_ENTRY bytes that entry (handed over whole: usually a view of the inflated
 * chunk it lies in).
 */
export async function* readTarGz(body: AsyncIterable<Buffer>, limits: ArchiveLimits): AsyncGenerator<ArchiveEntry> {
  const gunzip = createGunzip({ chunkSize: GUNZIP_OUT });
  const events = new TarEvents(gunzip);
  const fail = (error: Error): void => {
    events.failure ??= error;
    gunzip.destroy();
  };
  const budget = createBudget(limits, fail);
  const registry = createPathRegistry();
  gunzip.on('error', (error) => fail(archiveError(error, 'tar.gz')));
  // Headers, padding and zero blocks are no entry's bytes, so the budget does not count them:
  // the inflated stream is bounded as a whole too, or a gzip of zero blocks (a few MB that
  // inflate to gigabytes) would be parsed to its end. Past what is inflated ahead of the parser,
  // so an entry's own excess is still reported by the budget, naming the entry.
  const inflatedMax = limits.maxBytes + (limits.maxEntries + 1) * TAR_BYTES_PER_ENTRY + INFLATED_AHEAD + GUNZIP_OUT;
  let inflated = 0;
  gunzip.on('data', (chunk: Buffer) => {
    inflated += chunk.length;
    if (inflated > inflatedMax) fail(new TooLargeError(`the tar.gz archive inflates to more than ${inflatedMax} bytes, more than its entries' limit allows`));
  });
  pump(body, gunzip).catch((error: unknown) => fail(archiveError(error, 'tar.gz')));

  let content: EntryStream | undefined;
  try {
    for (;;) {
      const event = events.ready() ?? (await events.pull());
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
        const first = size === 0 ? EMPTY : (takePiece(events.ready(), budget, path) ?? (await nextPiece(events, budget, path)));
        const bytes = first.length === size ? first : await readRest(events, first, size, budget, path);
        yield { path, content: { kind: 'stream', source: handOver(bytes) } };
        continue;
      }
      content = new EntryStream(events, size, budget, path);
      yield { path, content: { kind: 'stream', source: content } };
      // The consumer asked for the next entry: whatever it left unread is skipped (still counted).
      await content.finish();
      if (budget.error) throw budget.error;
      content = undefined;
    }
    if (events.failure) throw events.failure;
  } finally {
    content?.destroy();
    gunzip.destroy(); // and so the pump stops reading the upload
  }
}

const EMPTY = Buffer.alloc(0);
/** Room for one entry's framing: its header, padding, and a pax or long-name header for a long path; and the end blocks. */
const TAR_BYTES_PER_ENTRY = 16 * 1024;

/**
 * Gunzip's input and output pieces. Each call into zlib is a round trip through libuv's
 * pool: inflating the publish benchmark's 76 MB archive took 450-620 ms of CPU in the
 * 64 KiB pieces an upload arrives in with 128 KiB out, 265-335 ms with 1 MiB in and
 * 256 KiB-1 MiB out. Out stays at 256 KiB: the chunks live while the entries in them are
 * stored, and in 1 MiB chunks a publish's peak RSS was 149-179 MB against 131-134 MB.
 */
const GUNZIP_IN = 1024 * 1024;
const GUNZIP_OUT = 256 * 1024;

/**
 * Feeds the upload to gunzip in pieces of GUNZIP_IN bytes, copied into two buffers
 * used in turn: one fills while zlib inflates the other, which is refilled only once zlib
 * has called back for it (and so is done reading it). Fixed buffers rather than a new one
 * per piece: a piece lives while zlib works on it, long enough to be promoted to V8's old
 * generation, where a dead one holds its megabyte until a full collection.
 */
async function pump(body: AsyncIterable<Buffer>, gunzip: Writable): Promise<void> {
  const closed = new Promise<void>((resolve) => gunzip.once('close', resolve));
  const buffers = [Buffer.allocUnsafe(GUNZIP_IN), Buffer.allocUnsafe(GUNZIP_IN)] as const;
  const inflated: [Promise<void>, Promise<void>] = [Promise.resolve(), Promise.resolve()];
  let turn = 0;
  let filled = 0;
  const send = (): void => {
    const piece = buffers[turn]!.subarray(0, filled);
    // Errors reach readTarGz through gunzip's 'error' event; this only says zlib is done with the piece.
    inflated[turn] = new Promise<void>((resolve) => gunzip.write(piece, () => resolve()));
    turn ^= 1;
    filled = 0;
  };
  for await (const chunk of body) {
    for (let at = 0; at < chunk.length; ) {
      if (filled === 0) await Promise.race([inflated[turn], closed]);
      if (gunzip.destroyed) return;
      const copied = chunk.copy(buffers[turn]!, filled, at);
      at += copied;
      filled += copied;
      if (filled === GUNZIP_IN) send();
    }
  }
  if (gunzip.destroyed) return;
  if (filled > 0) send();
  gunzip.end();
}

/**
 * Decompressed bytes inflated ahead of the parser, at most: gunzip runs on libuv's pool,
 * so with room ahead it inflates the next chunks while this thread parses and stores the
 * last (with a stream's usual 16 KiB it waited for each chunk to be read).
 */
const INFLATED_AHEAD = 512 * 1024;

/**
 * The parser's events over the decompressed stream. `ready()` is what the chunk at hand
 * still holds (most entries: their header and data lie in one chunk), `pull()` waits for
 * chunks until there is an event, or undefined once the archive has ended cleanly.
 */
class TarEvents {
  private readonly parser = new TarParser();
  /** Inflated chunks not yet parsed, and their bytes. */
  private readonly queue: Buffer[] = [];
  private queued = 0;
  private ended = false;
  private wake: (() => void) | undefined;
  /** The first failure of the pipeline (upload, gunzip, a passed limit); every later step rethrows it. */
  failure: Error | undefined;

  constructor(private readonly gunzip: Readable) {
    gunzip.on('data', (chunk: Buffer) => {
      this.queue.push(chunk);
      this.queued += chunk.length;
      if (this.queued >= INFLATED_AHEAD) gunzip.pause();
      this.resume();
    });
    // 'close' without 'end': destroyed, by a failure (set before) or the consumer stopping.
    const over = (): void => {
      this.ended = true;
      this.resume();
    };
    gunzip.on('end', over);
    gunzip.on('close', over);
  }

  ready(): TarEvent | undefined {
    try {
      return this.parser.next();
    } catch (error) {
      throw archiveError(error, 'tar.gz');
    }
  }

  async pull(): Promise<TarEvent | undefined> {
    for (;;) {
      if (this.failure) throw this.failure;
      const chunk = this.queue.shift();
      if (chunk === undefined) {
        if (this.ended) return this.end();
        await new Promise<void>((resolve) => (this.wake = resolve));
        continue;
      }
      this.queued -= chunk.length;
      if (this.queued < INFLATED_AHEAD && this.gunzip.isPaused()) this.gunzip.resume();
      this.parser.feed(chunk);
      const event = this.ready();
      if (event) return event;
    }
  }

  private end(): undefined {
    try {
      this.parser.end();
    } catch (error) {
      throw archiveError(error, 'tar.gz');
    }
    return undefined;
  }

  private resume(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}

/** An entry's data piece from `event`, counted against the byte budget; undefined when the chunk was used up. */
function takePiece(event: TarEvent | undefined, budget: Budget, path: string): Buffer | undefined {
  if (!event) return undefined;
  if (!event.data) throw endedInside(budget, path);
  const overBudget = addBytes(budget, event.data.length, path);
  if (overBudget) throw overBudget;
  return event.data;
}

/** The next piece of an entry's data, reading on when the chunk at hand is used up. */
async function nextPiece(events: TarEvents, budget: Budget, path: string): Promise<Buffer> {
  const piece = takePiece(events.ready() ?? (await events.pull()), budget, path);
  if (!piece) throw endedInside(budget, path);
  return piece;
}

const endedInside = (budget: Budget, path: string): Error =>
  budget.error ?? new ValidationError(`the tar.gz archive ended inside entry ${shown(path)}`);

/**
 * The rest of a small entry cut by a chunk's end (its header declares at most SMALL_ENTRY
 * bytes, and exactly that many follow), joined to its first piece.
 */
async function readRest(events: TarEvents, first: Buffer, size: number, budget: Budget, path: string): Promise<Buffer> {
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
    private readonly events: TarEvents,
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

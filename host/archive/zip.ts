import { randomUUID } from 'node:crypto';
import { mkdir, open, rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import yauzl from 'yauzl';
import { InsufficientStorageError, TooLargeError, ValidationError } from '../../domain/errors.ts';
import { isOutOfSpace } from '../blobs/spool.ts';
import { addBytes, archiveError, countEntry, countingTransform, createBudget, type Budget } from './budget.ts';
import { BlockReader } from './block-reader.ts';
import { createPathRegistry, shown, type PathRegistry } from './paths.ts';
import { SpoolWriter } from './spool-file.ts';
import { LocalEntries, type LocalEntry } from './zip-local.ts';
import type { Archived } from '../../domain/ports.ts';
import { SMALL_ENTRY, type ArchiveEntry, type ArchiveLimits } from './types.ts';

// Unix file types in the high 16 bits of a zip entry's external attributes.
const S_IFMT = 0o170000;
const FORBIDDEN_MODES: Record<number, string> = {
  0o120000: 'a symbolic link',
  0o020000: 'a character device',
  0o060000: 'a block device',
  0o010000: 'a FIFO',
  0o140000: 'a socket',
};
const S_IFDIR = 0o040000;
const MSDOS_DIRECTORY = 0x10;

// yauzl 3 API missing from @types/yauzl 2.x.
type ZipEntry = yauzl.Entry & { fileNameRaw: Buffer };
type ZipFile3 = yauzl.ZipFile & {
  readLocalFileHeader(entry: yauzl.Entry, options: { minimal: true }, callback: (err: Error | null, header: { fileDataStart: number }) => void): void;
};
const { getFileNameLowLevel } = yauzl as unknown as {
  getFileNameLowLevel(flags: number, raw: Buffer, extraFields: yauzl.Entry['extraFields'], strict: boolean): string;
};
const openZip = (reader: BlockReader, options: yauzl.Options): Promise<ZipFile3> =>
  new Promise((resolve, reject) =>
    yauzl.fromRandomAccessReader(reader, reader.size, options, (error, zip) => (error ? reject(error) : resolve(zip as ZipFile3))),
  );
const dataStart = (zip: ZipFile3, entry: yauzl.Entry): Promise<number> =>
  new Promise((resolve, reject) =>
    zip.readLocalFileHeader(entry, { minimal: true }, (error, header) => (error ? reject(error) : resolve(header.fileDataStart))),
  );
const openEntry = (zip: yauzl.ZipFile, entry: yauzl.Entry): Promise<Readable> =>
  new Promise((resolve, reject) =>
    zip.openReadStream(entry, (error, stream) => (error ? reject(error) : resolve(stream))),
  );

/**
 * A zip's central directory is at its end, so the upload is spooled to a temporary file
 * in `tmpDir` (on disk, never in memory) and read with yauzl. The file is always removed.
 *
 * While it arrives, its local headers are walked (zip-local.ts) and the plain small
 * entries among them handed over at once, so storing overlaps the upload instead of
 * following it. The central directory stays the authority: once all is here it must list
 * each of those entries, at the same offset, with the same name and header fields, as a
 * regular file; an entry it does not list, or lists otherwise, fails the archive. The
 * entries not handed over early (folders, empty or large files, whatever followed a
 * header the walk could not read past) are read from the spool file as before.
 */
export async function* readZip(
  body: AsyncIterable<Buffer>,
  limits: ArchiveLimits,
  tmpDir: string,
): AsyncGenerator<ArchiveEntry> {
  await mkdir(tmpDir, { recursive: true });
  const file = join(tmpDir, `upload-${randomUUID()}.zip`);
  let opened: yauzl.ZipFile | undefined;
  let handle: FileHandle | undefined;
  let content: Readable | undefined;
  const budget = createBudget(limits, () => {});
  const registry = createPathRegistry();
  /** Entries handed over while streaming, by local header offset, until the directory lists them. */
  const early = new Map<number, Early>();
  try {
    let size: number;
    try {
      // Created before anything streams, so the cleanup below always finds it.
      handle = await open(file, 'wx+');
      const spool = new SpoolWriter(handle);
      const locals = new LocalEntries();
      for await (const chunk of body) {
        await spool.write(chunk);
        for (const local of locals.push(chunk)) {
          // Past the byte limit the directory pass decides, knowing the entry's type: a
          // link's target must not make an archive "too large" rather than refused for it.
          if (budget.bytes + local.size > limits.maxBytes) {
            locals.stop();
            break;
          }
          yield handOverEarly(local, budget, registry, early);
        }
      }
      size = await spool.end();
    } catch (error) {
      if (isOutOfSpace(error)) throw new InsufficientStorageError('no space left to store the uploaded zip archive');
      throw archiveError(error, 'zip');
    }
    let zip: ZipFile3;
    let reader: BlockReader;
    try {
      reader = new BlockReader(handle, file, size);
      zip = opened = await openZip(reader, {
        lazyEntries: true,
        autoClose: false,
        validateEntrySizes: true,
        decodeStrings: false, // names are decoded and validated below, with our messages
      });
    } catch (error) {
      throw archiveError(error, 'zip');
    }
    // The declared count only ever makes us refuse early; the real count is checked per entry.
    if (zip.entryCount > limits.maxEntries) {
      throw new TooLargeError(`the archive has ${zip.entryCount} entries, more than the limit of ${limits.maxEntries}`);
    }
    let failure: Error | undefined;
    zip.on('error', (error: Error) => (failure ??= archiveError(error, 'zip')));
    for (;;) {
      const entry = await nextEntry(zip, () => failure);
      if (!entry) break;
      const name = getFileNameLowLevel(
        entry.generalPurposeBitFlag,
        (entry as ZipEntry).fileNameRaw,
        entry.extraFields,
        true, // strict: keep backslashes so they are refused, not silently turned into '/'
      );
      const handedOver = early.get(entry.relativeOffsetOfLocalHeader);
      if (!handedOver) countEntry(budget, name); // the early ones were counted as they came
      const mode = (entry.externalFileAttributes >>> 16) & S_IFMT;
      const forbidden = FORBIDDEN_MODES[mode];
      if (forbidden) {
        throw new ValidationError(`archive entry ${shown(name)} is ${forbidden}; only regular files and directories are allowed`);
      }
      const directory = name.endsWith('/') || mode === S_IFDIR || (mode === 0 && (entry.externalFileAttributes & MSDOS_DIRECTORY) !== 0);
      if (handedOver) {
        if (directory || !sameEntry(entry, name, handedOver)) throw differs(name);
        early.delete(entry.relativeOffsetOfLocalHeader); // a second record of it is read as any other
        continue;
      }
      if (directory) {
        registry.addDirectory(name);
        continue;
      }
      const path = registry.addFile(name);
      if (entry.isEncrypted()) throw new ValidationError(`archive entry ${shown(path)} is encrypted`);
      if (entry.compressionMethod !== 0 && entry.compressionMethod !== 8) {
        throw new ValidationError(
          `archive entry ${shown(path)} uses compression method ${entry.compressionMethod}; only stored and deflate are supported`,
        );
      }
      // Small entries (compressed and declared size both within SMALL_ENTRY) are handed over
      // as stored, to be inflated in one synchronous call bounded by their declared size: no
      // stream, no trip through the thread pool. Larger ones stream.
      if (entry.compressedSize <= SMALL_ENTRY && entry.uncompressedSize <= SMALL_ENTRY) {
        yield { path, content: { kind: 'archived', archived: await readSmallEntry(zip, reader, entry, path, budget) } };
        continue;
      }
      let raw: Readable;
      try {
        raw = await openEntry(zip, entry);
      } catch (error) {
        throw archiveError(error, 'zip');
      }
      const counted = countingTransform(budget, path, entry.crc32);
      content = counted;
      raw.on('error', (error) => counted.destroy(archiveError(error, 'zip')));
      counted.on('close', () => raw.destroy());
      counted.on('error', () => {}); // the consumer sees it through its own read
      raw.pipe(counted);
      yield { path, content: { kind: 'stream', source: counted } };
      // Random access: an entry the consumer left unread costs nothing to skip.
      if (!counted.readableEnded) counted.destroy();
      content = undefined;
      if (budget.error) throw budget.error;
      if (failure) throw failure;
    }
    if (failure) throw failure;
    for (const missing of early.values()) {
      throw new ValidationError(`the zip archive is corrupt: its central directory does not list entry ${shown(missing.name)}`);
    }
  } finally {
    content?.destroy();
    opened?.close();
    await handle?.close().catch(() => undefined);
    await rm(file, { force: true });
  }
}

/** What an entry handed over early declared in its local header (checked against the directory). */
type Early = { name: string; flags: number; method: number; crc32: number; compressedSize: number; size: number };

/** An entry found while streaming: counted, its path checked, its declared size budgeted. */
function handOverEarly(local: LocalEntry, budget: Budget, registry: PathRegistry, early: Map<number, Early>): ArchiveEntry {
  const name = getFileNameLowLevel(local.flags, local.nameRaw, [], true);
  countEntry(budget, name);
  const path = registry.addFile(name);
  const overBudget = addBytes(budget, local.size, path);
  if (overBudget) throw overBudget;
  const { flags, method, crc32, compressedSize, size } = local;
  early.set(local.offset, { name, flags, method, crc32, compressedSize, size });
  const corrupt = (reason: string) => new ValidationError(`the zip archive is corrupt: entry ${shown(path)} ${reason}`);
  return { path, content: { kind: 'archived', archived: { bytes: local.data, deflated: method === 8, size, crc32, corrupt } } };
}

function sameEntry(entry: yauzl.Entry, name: string, early: Early): boolean {
  return (
    name === early.name &&
    entry.generalPurposeBitFlag === early.flags &&
    entry.compressionMethod === early.method &&
    entry.crc32 === early.crc32 &&
    entry.compressedSize === early.compressedSize &&
    entry.uncompressedSize === early.size
  );
}

const differs = (name: string) =>
  new ValidationError(`the zip archive is corrupt: entry ${shown(name)} differs between its local header and the central directory`);

/**
 * One small entry, as stored: a view of its bytes in the spooled file, counted against
 * the budget by its declared size. Whoever takes it inflates it into exactly that many
 * bytes and checks the CRC-32 (`BlobStore.putArchived`, or `readContent`), so the
 * bytes counted are the bytes produced, or the entry fails.
 */
async function readSmallEntry(zip: ZipFile3, reader: BlockReader, entry: yauzl.Entry, path: string, budget: Budget): Promise<Archived> {
  let raw: Buffer;
  try {
    const start = await dataStart(zip, entry);
    raw = await reader.slice(start, entry.compressedSize);
  } catch (error) {
    throw archiveError(error, 'zip');
  }
  if (raw.length < entry.compressedSize) throw new ValidationError(`the zip archive is truncated inside entry ${shown(path)}`);
  const deflated = entry.compressionMethod === 8;
  const corrupt = (reason: string) => new ValidationError(`the zip archive is corrupt: entry ${shown(path)} ${reason}`);
  if (!deflated && raw.length !== entry.uncompressedSize) throw corrupt(`has ${raw.length} bytes, not the declared ${entry.uncompressedSize}`);
  const overBudget = addBytes(budget, entry.uncompressedSize, path);
  if (overBudget) throw overBudget;
  return { bytes: raw, deflated, size: entry.uncompressedSize, crc32: entry.crc32, corrupt };
}

/** Asks yauzl for the next central-directory entry; undefined at the end. */
function nextEntry(zip: yauzl.ZipFile, failed: () => Error | undefined): Promise<yauzl.Entry | undefined> {
  return new Promise((resolve, reject) => {
    const existing = failed();
    if (existing) return reject(existing);
    const cleanup = (): void => {
      zip.off('entry', onEntry);
      zip.off('end', onEnd);
      zip.off('error', onError);
    };
    const onEntry = (entry: yauzl.Entry): void => (cleanup(), resolve(entry));
    const onEnd = (): void => (cleanup(), resolve(undefined));
    const onError = (): void => (cleanup(), reject(failed()));
    zip.on('entry', onEntry);
    zip.on('end', onEnd);
    zip.on('error', onError);
    zip.readEntry();
  });
}

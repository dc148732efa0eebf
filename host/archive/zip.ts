import { randomUUID } from 'node:crypto';
import { mkdir, open, rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import yauzl from 'yauzl';
import { InsufficientStorageError, TooLargeError, ValidationError } from '../../domain/errors.ts';
import { addBytes, archiveError, countEntry, countingTransform, createBudget, type Budget } from './budget.ts';
import { BlockReader } from './block-reader.ts';
import { createPathRegistry, shown } from './paths.ts';
import type { ArchivedContent } from '../../app/publish/store-files.ts';
import { archivedContent } from './archived.ts';
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
  try {
    await spool(body, file);
    let zip: ZipFile3;
    let reader: BlockReader;
    try {
      handle = await open(file, 'r');
      reader = new BlockReader(handle, file, (await handle.stat()).size);
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
    const budget = createBudget(limits, () => {});
    const registry = createPathRegistry();
    for (;;) {
      const entry = await nextEntry(zip, () => failure);
      if (!entry) break;
      const name = getFileNameLowLevel(
        entry.generalPurposeBitFlag,
        (entry as ZipEntry).fileNameRaw,
        entry.extraFields,
        true, // strict: keep backslashes so they are refused, not silently turned into '/'
      );
      countEntry(budget, name);
      const mode = (entry.externalFileAttributes >>> 16) & S_IFMT;
      const forbidden = FORBIDDEN_MODES[mode];
      if (forbidden) {
        throw new ValidationError(`archive entry ${shown(name)} is ${forbidden}; only regular files and directories are allowed`);
      }
      if (name.endsWith('/') || mode === S_IFDIR || (mode === 0 && (entry.externalFileAttributes & MSDOS_DIRECTORY) !== 0)) {
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
        yield { path, content: await readSmallEntry(zip, reader, entry, path, budget) };
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
      yield { path, content: counted };
      // Random access: an entry the consumer left unread costs nothing to skip.
      if (!counted.readableEnded) counted.destroy();
      content = undefined;
      if (budget.error) throw budget.error;
      if (failure) throw failure;
    }
    if (failure) throw failure;
  } finally {
    content?.destroy();
    opened?.close();
    await handle?.close().catch(() => undefined);
    await rm(file, { force: true });
  }
}

/**
 * One small entry, as stored: a view of its bytes in the spooled file, counted against
 * the budget by its declared size. Whoever takes it inflates it into exactly that many
 * bytes and checks the CRC-32 (archived.ts, or the folder store's writer threads), so the
 * bytes counted are the bytes produced, or the entry fails.
 */
async function readSmallEntry(zip: ZipFile3, reader: BlockReader, entry: yauzl.Entry, path: string, budget: Budget): Promise<ArchivedContent> {
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
  return archivedContent({ bytes: raw, deflated, size: entry.uncompressedSize, crc32: entry.crc32, corrupt });
}

async function spool(body: AsyncIterable<Buffer>, file: string): Promise<void> {
  try {
    // Created before anything streams, so the caller's cleanup always finds it (a write
    // stream opening its file lazily could create it after a failed pipeline was cleaned up).
    const out = await open(file, 'wx');
    await pipeline(Readable.from(body, { objectMode: false }), out.createWriteStream());
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOSPC') {
      throw new InsufficientStorageError('no space left to store the uploaded zip archive');
    }
    throw archiveError(error, 'zip');
  }
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

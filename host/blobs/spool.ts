import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { InsufficientStorageError, isOutOfSpace, ValidationError } from '../../domain/errors.ts';

const HASH_RE = /^[0-9a-f]{64}$/;

/**
 * Rejects anything that is not 64 lower-case hex characters. Hashes become file
 * paths and object keys, so this is also the path-traversal guard.
 */
export function assertBlobHash(hash: unknown): asserts hash is string {
  if (typeof hash !== 'string' || !HASH_RE.test(hash)) {
    throw new Error(`invalid blob hash ${JSON.stringify(String(hash).slice(0, 80))}: expected 64 lower-case hex characters`);
  }
}

/** Checks an inclusive byte range before it reaches the filesystem or S3. */
export function assertRange(range: { start: number; end: number }): void {
  const { start, end } = range;
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start) {
    throw new RangeError(`invalid byte range ${start}-${end}`);
  }
}

/** True for the errno codes of a full disk or an exhausted quota (the domain's one list of them). */
export { isOutOfSpace };

/** Turns a disk-full error into the domain's 507 error; anything else passes through unchanged. */
export function mapStorageError(err: unknown, what: string): unknown {
  if (!isOutOfSpace(err)) return err;
  const code = (err as NodeJS.ErrnoException).code;
  return new InsufficientStorageError(`file store is out of space (${code}) while ${what}`);
}

export type Spooled = { readonly path: string; readonly hash: string; readonly size: number };

/**
 * Streams `source` into a new file of `tmpDir` while hashing it (SHA-256), chunk by
 * chunk, so a blob is never held in memory. On any failure the temp file is removed;
 * a source error is rethrown unchanged (the caller knows what it means), a full disk
 * becomes `InsufficientStorageError`.
 */
export async function spoolToTemp(source: Readable | AsyncIterable<Uint8Array>, tmpDir: string): Promise<Spooled> {
  const path = join(tmpDir, `${process.pid}-${randomUUID()}.part`);
  const hasher = createHash('sha256');
  let size = 0;
  // The source is consumed by this generator, not piped: pipeline() then rejects with
  // the source's own error object, which callers map (e.g. to 413 for a size limit).
  async function* hashing(input: AsyncIterable<Uint8Array | string>): AsyncGenerator<Uint8Array> {
    for await (const chunk of input) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      hasher.update(bytes);
      size += bytes.byteLength;
      yield bytes;
    }
  }
  const file = createWriteStream(path, { flags: 'wx' });
  try {
    await pipeline(source as AsyncIterable<Uint8Array>, hashing, file);
  } catch (err) {
    // A source that fails at once can reject the pipeline before the file is even open; the
    // stream still opens (creating the file) and closes after, so wait for that first.
    if (!file.closed) await new Promise<void>((done) => file.once('close', () => done()));
    await unlink(path).catch(() => undefined);
    throw mapStorageError(err, 'writing a blob');
  }
  return { path, hash: hasher.digest('hex'), size };
}

/**
 * A spooled upload whose content is not the digest it was sent under (spec §10): the temp
 * file goes, nothing was stored, and the caller answers 400.
 */
export async function rejectUnexpected(spooled: Spooled, expected: string | undefined): Promise<void> {
  if (expected === undefined || spooled.hash === expected) return;
  await unlink(spooled.path).catch(() => undefined);
  throw new ValidationError(`the content's SHA-256 is ${spooled.hash}, not ${expected}: nothing was stored`);
}

/** Default age after which a temp file is considered a crash leftover. */
export const STALE_TEMP_MS = 15 * 60_000;

/**
 * Removes temp files whose last write is older than `maxAgeMs` (leftovers of a crashed
 * process). Age is taken from mtime, so a slow upload still being written, possibly by
 * another process sharing the folder, is left alone. Returns how many were removed.
 */
export async function removeStaleTemp(tmpDir: string, maxAgeMs = STALE_TEMP_MS, now = Date.now()): Promise<number> {
  await mkdir(tmpDir, { recursive: true });
  let removed = 0;
  for (const name of await readdir(tmpDir)) {
    const file = join(tmpDir, name);
    const info = await stat(file).catch(() => undefined);
    if (!info?.isFile() || now - info.mtimeMs < maxAgeMs) continue;
    await unlink(file).then(
      () => removed++,
      () => undefined, // already gone (another process cleaned it)
    );
  }
  return removed;
}

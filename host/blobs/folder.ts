import { mkdirSync, readdirSync, statSync, unlinkSync } from 'node:fs';
import { link, mkdir, open, opendir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { createHash, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { BlobStore, ByteRange, PutResult } from '../../domain/ports.ts';
import { assertBlobHash, assertRange, mapStorageError, removeStaleTemp, spoolToTemp, STALE_TEMP_MS } from './spool.ts';

const FAN_RE = /^[0-9a-f]{2}$/;
const HASH_RE = /^[0-9a-f]{64}$/;

const isMissing = (err: unknown): boolean => (err as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';

/** `dir/ab/cd/<hash>`: two levels of fan-out keep directories small on every filesystem. */
export const blobPath = (dir: string, hash: string): string => join(dir, hash.slice(0, 2), hash.slice(2, 4), hash);

/** Removes crash leftovers from `dir/tmp` (see `removeStaleTemp`). */
export const cleanupTemp = (dir: string, maxAgeMs = STALE_TEMP_MS): Promise<number> => removeStaleTemp(join(dir, 'tmp'), maxAgeMs);

/**
 * The embedded file store: a folder of content-addressed files. A blob with SHA-256 `h`
 * lives at `dir/h[0..2]/h[2..4]/h`; uploads are spooled into `dir/tmp/` (same
 * filesystem, so moving them into place is atomic) and readers never see a partial blob.
 * Temp files left by a crashed process are removed at open once they are stale.
 */
export function openFolderBlobStore(dir: string): BlobStore {
  const tmpDir = join(dir, 'tmp');
  mkdirSync(tmpDir, { recursive: true });
  sweepSync(tmpDir, STALE_TEMP_MS);

  // Fan-out folders known to exist: saves a mkdir round trip per stored file.
  const madeDirs = new Set<string>();

  /** Moves a finished temp file to its final name, exactly once per hash. */
  async function commit(tempPath: string, hash: string): Promise<boolean> {
    const final = blobPath(dir, hash);
    try {
      const fan = hash.slice(0, 4);
      if (!madeDirs.has(fan)) {
        await mkdir(join(dir, hash.slice(0, 2), hash.slice(2, 4)), { recursive: true });
        madeDirs.add(fan);
      }
      // link() fails with EEXIST when the blob is there already, so two concurrent
      // uploads of the same content agree on which one created it.
      try {
        await link(tempPath, final);
        return true;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
        if (!['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS'].includes((err as NodeJS.ErrnoException).code ?? '')) throw err;
        // Filesystems without hard links: an atomic rename is still safe (same bytes).
        if (await exists(final)) return false;
        await rename(tempPath, final);
        return true;
      }
    } catch (err) {
      throw mapStorageError(err, 'storing a blob');
    } finally {
      await unlink(tempPath).catch(() => undefined); // after rename it is already gone
    }
  }

  async function exists(path: string): Promise<boolean> {
    return stat(path).then(
      () => true,
      (err) => (isMissing(err) ? false : Promise.reject(err)),
    );
  }

  return {
    async put(source: Readable | AsyncIterable<Uint8Array>): Promise<PutResult> {
      const spooled = await spoolToTemp(source, tmpDir);
      const created = await commit(spooled.path, spooled.hash);
      return { hash: spooled.hash, size: spooled.size, created };
    },

    async putBytes(bytes: Uint8Array): Promise<PutResult> {
      const hash = createHash('sha256').update(bytes).digest('hex');
      if (await exists(blobPath(dir, hash))) return { hash, size: bytes.byteLength, created: false };
      const tempPath = join(tmpDir, `${process.pid}-${randomUUID()}.part`);
      try {
        await writeFile(tempPath, bytes, { flag: 'wx' });
      } catch (err) {
        await unlink(tempPath).catch(() => undefined);
        throw mapStorageError(err, 'writing a blob');
      }
      const created = await commit(tempPath, hash);
      return { hash, size: bytes.byteLength, created };
    },

    async has(hash: string): Promise<boolean> {
      assertBlobHash(hash);
      return exists(blobPath(dir, hash));
    },

    async stat(hash: string): Promise<{ size: number } | undefined> {
      assertBlobHash(hash);
      try {
        return { size: (await stat(blobPath(dir, hash))).size };
      } catch (err) {
        if (isMissing(err)) return undefined;
        throw err;
      }
    },

    async get(hash: string, range?: ByteRange): Promise<Readable | undefined> {
      assertBlobHash(hash);
      if (range) assertRange(range);
      // Open first, then stream from the handle: no window between "exists" and "read".
      let handle;
      try {
        handle = await open(blobPath(dir, hash), 'r');
      } catch (err) {
        if (isMissing(err)) return undefined;
        throw err;
      }
      if (!range) return handle.createReadStream();
      const { size } = await handle.stat();
      if (range.start >= size) {
        await handle.close();
        throw new RangeError(`byte range ${range.start}-${range.end} starts past the end of a ${size}-byte blob`);
      }
      return handle.createReadStream({ start: range.start, end: Math.min(range.end, size - 1) });
    },

    async getBytes(hash: string): Promise<Buffer | undefined> {
      assertBlobHash(hash);
      try {
        return await readFile(blobPath(dir, hash));
      } catch (err) {
        if (isMissing(err)) return undefined;
        throw err;
      }
    },

    async delete(hash: string): Promise<void> {
      assertBlobHash(hash);
      await unlink(blobPath(dir, hash)).catch((err) => {
        if (!isMissing(err)) throw err;
      });
    },

    async *list(): AsyncIterable<string> {
      // Streams directory by directory; only names of the exact layout count, so `tmp/`
      // and any stray file are never reported as blobs.
      for await (const a of await opendir(dir)) {
        if (!a.isDirectory() || !FAN_RE.test(a.name)) continue;
        for await (const b of await opendir(join(dir, a.name)).catch(skipMissing)) {
          if (!b.isDirectory() || !FAN_RE.test(b.name)) continue;
          for await (const f of await opendir(join(dir, a.name, b.name)).catch(skipMissing)) {
            if (f.isFile() && HASH_RE.test(f.name) && f.name.startsWith(a.name + b.name)) yield f.name;
          }
        }
      }
    },

    async close(): Promise<void> {
      // Nothing is held open between calls: every read stream owns its own file handle.
    },
  };
}

/** A directory deleted while listing is just empty. */
function skipMissing(err: unknown): AsyncIterable<never> {
  if (isMissing(err)) return (async function* () {})();
  throw err;
}

function sweepSync(tmpDir: string, maxAgeMs: number): void {
  const now = Date.now();
  for (const name of readdirSync(tmpDir)) {
    const file = join(tmpDir, name);
    try {
      const info = statSync(file);
      if (info.isFile() && now - info.mtimeMs >= maxAgeMs) unlinkSync(file);
    } catch {
      // gone already, or not ours to remove: leave it
    }
  }
}

import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InsufficientStorageError } from '../../domain/errors.ts';
import { cleanupTemp, openFolderBlobStore } from '../../host/blobs/folder.ts';

// Folder-adapter behaviour beyond the shared contract (blobstore.test.ts): layout,
// crash leftovers, a real full disk.

describe('folder blob store specifics', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'blobs-folder-extra-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('lays blobs out as ab/<hash> and lists nothing else', async () => {
    const store = openFolderBlobStore(dir);
    const { hash } = await store.putBytes(Buffer.from('layout'));
    expect((await stat(join(dir, hash.slice(0, 2), hash))).isFile()).toBe(true);
    const streamed = await store.put(Readable.from([Buffer.alloc(300_000, 'big')]));
    expect((await stat(join(dir, streamed.hash.slice(0, 2), streamed.hash))).isFile()).toBe(true);
    // all 256 fan-out folders exist from the start: storing never has to make one
    expect((await readdir(dir)).filter((n) => /^[0-9a-f]{2}$/.test(n))).toHaveLength(256);
    // strays: a fresh temp file, a misplaced hash, a non-hash file, a stray folder
    await writeFile(join(dir, 'tmp', 'in-flight.part'), 'x');
    await writeFile(join(dir, '00', hash), 'misplaced');
    await writeFile(join(dir, '00', 'notes.txt'), 'x');
    await mkdir(join(dir, '00', '11'), { recursive: true });
    const listed: string[] = [];
    for await (const h of store.list()) listed.push(h);
    expect(listed.sort()).toEqual([hash, streamed.hash].sort());
    await store.delete(streamed.hash);
    await store.close();
  });

  it('moves blobs of the earlier ab/cd/<hash> layout into place when it opens', async () => {
    const old = await mkdtemp(join(tmpdir(), 'blobs-folder-old-'));
    try {
      const content = Buffer.from('stored by the two-level layout');
      const hash = createHash('sha256').update(content).digest('hex');
      await mkdir(join(old, hash.slice(0, 2), hash.slice(2, 4)), { recursive: true });
      await writeFile(join(old, hash.slice(0, 2), hash.slice(2, 4), hash), content);
      await mkdir(join(old, 'ff', 'ee'), { recursive: true });
      await writeFile(join(old, 'ff', 'ee', 'notes.txt'), 'not a blob: left alone');
      const store = openFolderBlobStore(old);
      expect((await store.getBytes(hash))?.equals(content)).toBe(true);
      const listed: string[] = [];
      for await (const h of store.list()) listed.push(h);
      expect(listed).toEqual([hash]);
      await expect(stat(join(old, hash.slice(0, 2), hash.slice(2, 4)))).rejects.toThrow(); // emptied and removed
      expect((await readdir(join(old, 'ff', 'ee')))).toEqual(['notes.txt']);
      // stored again under the new layout: already there, nothing created
      expect((await store.putBytes(content)).created).toBe(false);
      await store.close();
    } finally {
      await rm(old, { recursive: true, force: true });
    }
  });

  it('replaces the shorter leftover of an interrupted write, and never rewrites a complete blob', async () => {
    const store = openFolderBlobStore(dir);
    const content = Buffer.from(`a blob whose first write was cut short ${Date.now()}`);
    const hash = createHash('sha256').update(content).digest('hex');
    const path = join(dir, hash.slice(0, 2), hash);
    await writeFile(path, content.subarray(0, 7)); // what a crash mid-write leaves
    expect((await store.putBytes(content)).created).toBe(true);
    expect((await store.getBytes(hash))?.equals(content)).toBe(true);
    const { ino, mtimeMs } = await stat(path);
    expect((await store.putBytes(content)).created).toBe(false);
    expect(await stat(path)).toMatchObject({ ino, mtimeMs });
    await store.delete(hash);
    await store.close();
  });

  it('lets exactly one of several concurrent puts of the same content create it', async () => {
    const store = openFolderBlobStore(dir);
    const content = Buffer.from(`raced ${Date.now()}`);
    const results = await Promise.all([1, 2, 3, 4].map((i) => (i % 2 ? store.put(Readable.from([content])) : store.putBytes(content))));
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(new Set(results.map((r) => r.hash)).size).toBe(1);
    expect((await store.getBytes(results[0].hash))?.equals(content)).toBe(true);
    await store.delete(results[0].hash);
  });

  it('stores copies of one content written at once by its writer threads once, reporting one created', async () => {
    const store = openFolderBlobStore(dir);
    for (const size of [0, 1, 200_000]) {
      const content = Buffer.alloc(size, `copies ${size} ${Date.now()}`);
      const results = await Promise.all(Array.from({ length: 12 }, () => store.putBytes(content)));
      expect(results.filter((r) => r.created)).toHaveLength(1);
      expect((await store.getBytes(results[0]!.hash))?.equals(content)).toBe(true);
      await store.delete(results[0]!.hash);
    }
    expect((await readdir(join(dir, 'tmp'))).filter((n) => n.endsWith('.part') && n !== 'in-flight.part')).toEqual([]);
    await store.close();
  });

  it('removes stale temp files at open and keeps recent ones', async () => {
    const tmp = join(dir, 'tmp');
    await writeFile(join(tmp, 'crashed.part'), 'left over');
    const old = new Date(Date.now() - 60 * 60_000);
    await utimes(join(tmp, 'crashed.part'), old, old);
    await writeFile(join(tmp, 'uploading.part'), 'in progress');
    openFolderBlobStore(dir);
    expect((await readdir(tmp)).sort()).toEqual(['in-flight.part', 'uploading.part']);
    await utimes(join(tmp, 'uploading.part'), old, old);
    expect(await cleanupTemp(dir)).toBe(1);
    expect(await readdir(tmp)).toEqual(['in-flight.part']);
  });
});

// A real full disk: a 1 MiB tmpfs. Mounting needs root (and a kernel that allows it
// in this container); elsewhere the test says why it is skipped.
const tmpfs = await tryMountTmpfs();
describe.skipIf(!tmpfs)(`folder blob store on a full disk${tmpfs ? '' : ' (skipped: cannot mount a tmpfs here)'}`, () => {
  afterAll(() => tmpfs?.unmount());

  it('throws InsufficientStorageError and leaves no temp file', async () => {
    const store = openFolderBlobStore(tmpfs!.dir);
    const big = Readable.from((function* () {
      for (let i = 0; i < 40; i++) yield Buffer.alloc(64 * 1024, i);
    })());
    const err = await store.put(big).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InsufficientStorageError);
    expect((err as Error).message).toMatch(/out of space \(ENOSPC\)/);
    expect(await readdir(join(tmpfs!.dir, 'tmp'))).toEqual([]);
    const listed: string[] = [];
    for await (const h of store.list()) listed.push(h);
    expect(listed).toEqual([]);
    // the store still works once the content fits
    expect((await store.putBytes(Buffer.from('small'))).created).toBe(true);
  });
});

async function tryMountTmpfs(): Promise<{ dir: string; unmount(): Promise<void> } | undefined> {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return undefined;
  const { execFileSync } = await import('node:child_process');
  const dir = await mkdtemp(join(tmpdir(), 'blobs-full-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dir], { stdio: 'ignore' });
  } catch {
    await rm(dir, { recursive: true, force: true });
    return undefined;
  }
  return {
    dir,
    async unmount() {
      execFileSync('umount', [dir], { stdio: 'ignore' });
      await rm(dir, { recursive: true, force: true });
    },
  };
}

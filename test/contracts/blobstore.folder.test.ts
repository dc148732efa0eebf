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

  it('lays blobs out as ab/cd/<hash> and lists nothing else', async () => {
    const store = openFolderBlobStore(dir);
    const { hash } = await store.putBytes(Buffer.from('layout'));
    expect((await stat(join(dir, hash.slice(0, 2), hash.slice(2, 4), hash))).isFile()).toBe(true);
    // strays: a fresh temp file, a misplaced hash, a non-hash file
    await writeFile(join(dir, 'tmp', 'in-flight.part'), 'x');
    await mkdir(join(dir, '00', '11'), { recursive: true });
    await writeFile(join(dir, '00', '11', hash), 'misplaced');
    await writeFile(join(dir, '00', '11', 'notes.txt'), 'x');
    const listed: string[] = [];
    for await (const h of store.list()) listed.push(h);
    expect(listed).toEqual([hash]);
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

import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, deflateRawSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeFiles, type StoredFile } from '../../app/publish/store-files.ts';
import { TooLargeError, ValidationError } from '../../domain/errors.ts';
import type { BlobStore } from '../../domain/ports.ts';
import { readArchive, type ArchiveLimits } from '../../host/archive/index.ts';
import { openFolderBlobStore } from '../../host/blobs/folder.ts';
import { unpackArchived } from '../../host/blobs/unpack-archived.ts';
import { chunked, makeRawZip, type RawZipEntry } from '../support/archives.ts';

// The publish path of a zip into the folder store: small entries reach its writer threads
// as stored in the archive (`putArchived`), and are inflated, checked and hashed there. The
// same archives as test/unit/archive.test.ts's zip checks, through that path.

const LIMITS: ArchiveLimits = { maxEntries: 100, maxBytes: 10_000_000 };
let tmp: string;
let store: ReturnType<typeof openFolderBlobStore>;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'archive-store-test-'));
  store = openFolderBlobStore(join(tmp, 'blobs'));
});
afterAll(async () => {
  await store.close();
  await rm(tmp, { recursive: true, force: true });
});

async function publish(entries: RawZipEntry[], limits = LIMITS, blobs: BlobStore = store): Promise<StoredFile[]> {
  const stored: StoredFile[] = [];
  await storeFiles(blobs, readArchive(chunked(makeRawZip(entries)), limits, join(tmp, 'spool')), (file) => stored.push(file));
  return stored;
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const plain = Buffer.from(Array.from({ length: 20_000 }, (_, i) => 'abcdefgh'.charCodeAt(i % 8) + (i % 3)));

describe('storing a zip in the folder store (entries inflated on its writer threads)', () => {
  it('stores stored and deflated entries exactly, across the reader’s cache blocks', async () => {
    const padding = Buffer.from(Array.from({ length: 3 * 1024 * 1024 - 10 }, (_, i) => (i * 7919) % 251));
    const stored = await publish([
      { name: 'pad.bin', data: padding.subarray(0, 200_000), method: 0 },
      { name: 'big.bin', data: padding, method: 0 },
      { name: 'stored.txt', data: plain, method: 0 },
      { name: 'deflated.txt', data: plain },
      { name: 'empty.txt', data: Buffer.alloc(0) },
    ]);
    expect(stored.map((f) => f.path).sort()).toEqual(['big.bin', 'deflated.txt', 'empty.txt', 'pad.bin', 'stored.txt']);
    for (const f of stored) {
      const expected = { 'pad.bin': padding.subarray(0, 200_000), 'big.bin': padding, 'stored.txt': plain, 'deflated.txt': plain, 'empty.txt': Buffer.alloc(0) }[f.path]!;
      expect(f.put).toMatchObject({ hash: sha256(expected), size: expected.length });
      expect((await store.getBytes(f.put.hash))?.equals(expected)).toBe(true);
    }
  });

  // Content of its own per case (random, so the deflate stream is long enough to cut).
  const own = () => Buffer.concat([plain, randomBytes(5_000)]);
  it.each([
    ['inflates to more than it declares', (b: Buffer) => ({ bytes: deflateRawSync(b), crc: crc32(b), size: b.length - 1 }), /more than its declared/],
    ['inflates to fewer bytes than it declares', (b: Buffer) => ({ bytes: deflateRawSync(b), crc: crc32(b), size: b.length + 1 }), /not the declared/],
    ['has its deflate stream cut short', (b: Buffer) => ({ bytes: deflateRawSync(b).subarray(0, 2_000), crc: crc32(b), size: b.length }), /does not inflate|not the declared/],
    ['fails its CRC-32', (b: Buffer) => ({ bytes: deflateRawSync(b), crc: (crc32(b) ^ 1) >>> 0, size: b.length }), /CRC-32/],
  ])('refuses an entry that %s, and stores nothing of it', async (_, deflated, message) => {
    const content = own();
    const error = await rejection(publish([{ name: 'bad.txt', deflated: deflated(content) }]));
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.message).toMatch(/the zip archive is corrupt: entry "?bad\.txt"? /);
    expect(error.message).toMatch(message);
    expect(await store.has(sha256(content))).toBe(false);
  });

  it('refuses a stored entry whose CRC-32 is wrong', async () => {
    const zip = makeRawZip([{ name: 'index.html', data: Buffer.from('hello world'), method: 0 }]);
    zip[30 + 'index.html'.length] ^= 1; // first data byte
    const error = await rejection(storeFiles(store, readArchive(chunked(zip), LIMITS, join(tmp, 'spool')), () => {}));
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.message).toContain('CRC-32');
  });

  it('counts declared sizes toward the byte limit before anything is inflated', async () => {
    const error = await rejection(publish([{ name: 'a.txt', data: plain }, { name: 'b.txt', data: plain, method: 0 }], { maxEntries: 10, maxBytes: plain.length + 10 }));
    expect(error).toBeInstanceOf(TooLargeError);
  });

  it('a store without writer threads (as S3) inflates and checks archived writes on this thread', async () => {
    const plainStore: BlobStore = { ...store, putArchived: async (archived) => store.putBytes(unpackArchived(archived)) };
    const stored = await publish([{ name: 'deflated.txt', data: plain }], LIMITS, plainStore);
    expect(stored[0]!.put.hash).toBe(sha256(plain));
    const error = await rejection(publish([{ name: 'bad.txt', deflated: { bytes: deflateRawSync(plain), crc: 1, size: plain.length } }], LIMITS, plainStore));
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.message).toContain('CRC-32');
  });

  it('leaves no spool or temp file behind', async () => {
    expect(await readdir(join(tmp, 'spool'))).toEqual([]);
    expect(await readdir(join(tmp, 'blobs', 'tmp'))).toEqual([]);
  });
});

import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ValidationError } from '../../domain/errors.ts';
import type { BlobStore } from '../../domain/ports.ts';

/** What each adapter's test file hands to the shared contract. */
export type BlobStoreFixture = {
  readonly store: BlobStore;
  /**
   * Something that changes whenever the stored object for `hash` is (re)written:
   * inode + mtime for a folder, the server-side upload count + last-modified for S3.
   * Lets the contract prove that storing known content again writes nothing.
   */
  writeMarker(hash: string): Promise<string>;
  /** Files currently in the adapter's spool folder: must be empty between operations. */
  tempFiles(): Promise<string[]>;
  dispose(): Promise<void>;
};

const sha256 = (bytes: Uint8Array | string): string => createHash('sha256').update(bytes).digest('hex');

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

/** Deterministic pseudo-random chunks (xorshift), so a large blob can be regenerated instead of kept. */
async function* generated(totalBytes: number, seed: number, chunkSize = 64 * 1024): AsyncGenerator<Uint8Array> {
  let x = seed >>> 0 || 1;
  for (let sent = 0; sent < totalBytes; sent += chunkSize) {
    const chunk = Buffer.allocUnsafe(Math.min(chunkSize, totalBytes - sent));
    for (let i = 0; i + 4 <= chunk.length; i += 4) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      chunk.writeUInt32LE(x >>> 0, i);
    }
    chunk.fill(7, chunk.length - (chunk.length % 4));
    yield chunk;
  }
}

/**
 * The BlobStore contract, run against every adapter. `open` is called once per file;
 * every test uses content unique to itself (a random salt), so tests share one store.
 */
export function blobStoreContract(name: string, open: () => Promise<BlobStoreFixture>): void {
  describe(`BlobStore contract: ${name}`, () => {
    let fx: BlobStoreFixture;
    let store: BlobStore;
    const salt = `${name}-${Date.now()}-${Math.random()}`;
    const unique = (label: string): Buffer => Buffer.from(`${salt}:${label}:`.repeat(3) + label);

    beforeAll(async () => {
      fx = await open();
      store = fx.store;
    });
    afterAll(async () => {
      await fx?.store.close();
      await fx?.dispose();
    });

    it('round-trips a streamed blob under its SHA-256', async () => {
      const content = unique('round-trip');
      const result = await store.put(Readable.from([content.subarray(0, 10), content.subarray(10)]));
      expect(result).toEqual({ hash: sha256(content), size: content.length, created: true });
      expect(await store.has(result.hash)).toBe(true);
      expect(await store.stat(result.hash)).toEqual({ size: content.length });
      expect(await store.getBytes(result.hash)).toEqual(content);
      const stream = await store.get(result.hash);
      expect(stream).toBeDefined();
      expect(await readAll(stream!)).toEqual(content);
      expect(await fx.tempFiles()).toEqual([]);
    });

    it('accepts an async iterable source, and an empty blob', async () => {
      const content = unique('iterable');
      const result = await store.put((async function* () { yield content; })());
      expect(result.hash).toBe(sha256(content));
      const empty = await store.put(Readable.from([]));
      expect(empty.hash).toBe(sha256(''));
      expect(empty.size).toBe(0);
      expect(await store.getBytes(empty.hash)).toEqual(Buffer.alloc(0));
    });

    it('stores identical content once and writes nothing the second time', async () => {
      const content = unique('dedupe');
      const first = await store.put(Readable.from([content]));
      expect(first.created).toBe(true);
      const before = await fx.writeMarker(first.hash);
      const second = await store.put(Readable.from([content]));
      const third = await store.putBytes(content);
      expect(second).toEqual({ ...first, created: false });
      expect(third).toEqual({ ...first, created: false });
      expect(await fx.writeMarker(first.hash)).toBe(before);
      expect(await fx.tempFiles()).toEqual([]);
    });

    it('put with an expected digest: stores matching content; a mismatch stores nothing, not even under the right hash (spec §10)', async () => {
      const content = unique('expected');
      const result = await store.put(Readable.from([content]), sha256(content));
      expect(result).toEqual({ hash: sha256(content), size: content.length, created: true });
      // Already there: no error, nothing written.
      const marker = await fx.writeMarker(result.hash);
      expect((await store.put(Readable.from([content]), sha256(content))).created).toBe(false);
      expect(await fx.writeMarker(result.hash)).toBe(marker);

      const claimed = sha256(unique('claimed-but-not-sent'));
      const sent = unique('sent-instead');
      const err = await store.put(Readable.from([sent]), claimed).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as Error).message).toContain(claimed);
      expect(await store.has(claimed)).toBe(false);
      expect(await store.has(sha256(sent))).toBe(false);
      expect(await fx.tempFiles()).toEqual([]);
    });

    it('putBytes stores small values, readable by stream and by bytes', async () => {
      const content = new Uint8Array(unique('put-bytes'));
      const result = await store.putBytes(content);
      expect(result).toEqual({ hash: sha256(content), size: content.length, created: true });
      expect(await store.getBytes(result.hash)).toEqual(Buffer.from(content));
      expect(await readAll((await store.get(result.hash))!)).toEqual(Buffer.from(content));
      // and the streamed path agrees that it is already there
      expect((await store.put(Readable.from([Buffer.from(content)]))).created).toBe(false);
    });

    it('serves inclusive byte ranges: first byte, middle, last byte, clamped end', async () => {
      const content = Buffer.from('0123456789abcdefghij' + salt);
      const { hash } = await store.putBytes(content);
      const range = async (start: number, end: number) => readAll((await store.get(hash, { start, end }))!);
      expect(await range(0, 0)).toEqual(content.subarray(0, 1));
      expect(await range(5, 12)).toEqual(content.subarray(5, 13));
      const last = content.length - 1;
      expect(await range(last, last)).toEqual(content.subarray(last));
      expect(await range(3, last + 1000)).toEqual(content.subarray(3));
      await expect(store.get(hash, { start: 4, end: 2 })).rejects.toThrow(RangeError);
      await expect(store.get(hash, { start: content.length, end: content.length + 5 })).rejects.toThrow(RangeError); // S3: InvalidRange
    });

    it('answers undefined for a missing blob, and deleting it is no error', async () => {
      const missing = sha256(unique('never-stored'));
      expect(await store.has(missing)).toBe(false);
      expect(await store.stat(missing)).toBeUndefined();
      expect(await store.get(missing)).toBeUndefined();
      expect(await store.get(missing, { start: 0, end: 3 })).toBeUndefined();
      expect(await store.getBytes(missing)).toBeUndefined();
      await expect(store.delete(missing)).resolves.toBeUndefined();
    });

    it('deletes a stored blob', async () => {
      const { hash } = await store.putBytes(unique('delete-me'));
      await store.delete(hash);
      expect(await store.has(hash)).toBe(false);
      expect(await store.getBytes(hash)).toBeUndefined();
      // storing it again creates it again
      expect((await store.putBytes(unique('delete-me'))).created).toBe(true);
    });

    it('lists exactly the stored hashes', async () => {
      const listed = async () => {
        const all: string[] = [];
        for await (const h of store.list()) all.push(h);
        return all;
      };
      for (const h of await listed()) await store.delete(h);
      expect(await listed()).toEqual([]);
      const hashes = await Promise.all(['a', 'b', 'c'].map(async (l) => (await store.putBytes(unique(`list-${l}`))).hash));
      await store.delete(hashes[1]);
      expect((await listed()).sort()).toEqual([hashes[0], hashes[2]].sort());
    });

    it('leaves no blob and no temp file when the source fails midway, and rethrows its error', async () => {
      const boom = new Error('source broke');
      const prefix = unique('failing');
      const source = new Readable({
        read() {
          this.push(prefix);
          this.destroy(boom);
        },
      });
      await expect(store.put(source)).rejects.toBe(boom);
      const failingIterable = (async function* () {
        yield prefix;
        throw boom;
      })();
      await expect(store.put(failingIterable)).rejects.toBe(boom);
      expect(await store.has(sha256(prefix))).toBe(false);
      expect(await fx.tempFiles()).toEqual([]);
    });

    it('streams a 20 MB blob and agrees with a separately computed hash', async () => {
      const size = 20 * 1024 * 1024;
      const seed = Math.floor(Math.random() * 2 ** 31);
      const expected = createHash('sha256');
      for await (const chunk of generated(size, seed)) expected.update(chunk);
      const hash = expected.digest('hex');

      const result = await store.put(Readable.from(generated(size, seed)));
      expect(result).toEqual({ hash, size, created: true });
      expect(await store.stat(hash)).toEqual({ size });
      const back = createHash('sha256');
      let length = 0;
      for await (const chunk of (await store.get(hash))!) {
        back.update(chunk);
        length += chunk.length;
      }
      expect(length).toBe(size);
      expect(back.digest('hex')).toBe(hash);
      const tail = await readAll((await store.get(hash, { start: size - 10, end: size - 1 }))!);
      expect(tail.length).toBe(10);
      await store.delete(hash);
    });

    it('rejects anything but 64 lower-case hex characters as a hash', async () => {
      const good = sha256('x');
      const bad = ['', 'abc', good.toUpperCase(), `${good}0`, `../${good.slice(3)}`, `ab/cd/${good.slice(6)}`, `${good.slice(0, 63)}g`];
      for (const hash of bad) {
        await expect(store.has(hash)).rejects.toThrow(/invalid blob hash/);
        await expect(store.stat(hash)).rejects.toThrow(/invalid blob hash/);
        await expect(store.get(hash)).rejects.toThrow(/invalid blob hash/);
        await expect(store.getBytes(hash)).rejects.toThrow(/invalid blob hash/);
        await expect(store.delete(hash)).rejects.toThrow(/invalid blob hash/);
      }
    });
  });
}

import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { crc32, deflateRawSync, gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TooLargeError, UnsupportedMediaTypeError, ValidationError } from '../../domain/errors.ts';
import { detectFormat, normaliseEntryPath, type ArchiveLimits } from '../../host/archive/index.ts';
import { readArchive } from '../support/archive-entries.ts';
import { chunked, makeRawZip, makeTar, makeTarGz, makeTarGzBomb, makeZip, makeZipBomb, type TestEntry } from '../support/archives.ts';

const LIMITS: ArchiveLimits = { maxEntries: 100, maxBytes: 1_000_000 };
let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'archive-test-'));
});
afterAll(() => rm(tmp, { recursive: true, force: true }));
// Whatever happened, the zip spool file must be gone.
afterEach(async () => expect(await readdir(tmp)).toEqual([]));

type Read = { path: string; data: Buffer };
async function readAll(archive: Buffer | Readable, limits = LIMITS): Promise<Read[]> {
  const source = Buffer.isBuffer(archive) ? chunked(archive) : archive;
  const out: Read[] = [];
  for await (const entry of readArchive(source, limits, tmp)) {
    const chunks: Buffer[] = [];
    for await (const chunk of entry.content) chunks.push(chunk);
    out.push({ path: entry.path, data: Buffer.concat(chunks) });
  }
  return out;
}
const texts = (read: Read[]) => read.map((e) => [e.path, e.data.toString()]);

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}

const formats = [
  { format: 'tar.gz', make: (entries: TestEntry[]) => makeTarGz(entries) },
  { format: 'zip', make: (entries: TestEntry[]) => makeZip(entries) },
] as const;

describe('detectFormat', () => {
  it('knows gzip and zip by their magic bytes only', () => {
    expect(detectFormat(Buffer.from([0x1f, 0x8b, 8, 0]))).toBe('tar.gz');
    expect(detectFormat(Buffer.from('PK\x03\x04', 'latin1'))).toBe('zip');
    expect(detectFormat(Buffer.from('PK\x05\x06', 'latin1'))).toBe('zip');
    expect(detectFormat(Buffer.from('PK\x07\x08', 'latin1'))).toBeUndefined();
    expect(detectFormat(Buffer.from('PK'))).toBeUndefined();
    expect(detectFormat(Buffer.from('<html>'))).toBeUndefined();
    expect(detectFormat(Buffer.alloc(0))).toBeUndefined();
  });
});

describe('normaliseEntryPath', () => {
  it.each([
    ['index.html', 'index.html'],
    ['./a/b.css', 'a/b.css'],
    ['a//b/./c', 'a/b/c'],
    ['dir/', 'dir'],
    ['...', '...'],
    ['a..b/c', 'a..b/c'],
  ])('%j → %j', (raw, path) => expect(normaliseEntryPath(raw)).toBe(path));

  it.each([['../x'], ['a/../../x'], ['a/..'], ['/etc/passwd'], ['C:/x'], ['c:x'], ['.//C:/x'], ['a\\b'], ['..\\x'], ['a\0b'], [''], ['.'], ['./'], ['//']])(
    '%j is refused',
    (raw) => expect(() => normaliseEntryPath(raw)).toThrow(ValidationError),
  );
});

describe.each(formats)('readArchive $format', ({ format, make }) => {
  it('yields files in order with their exact bytes, nested dirs, directories not yielded', async () => {
    const binary = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 31) & 0xff));
    const archive = await make([
      { name: 'index.html', content: '<h1>hi</h1>' },
      { type: 'dir', name: 'assets' },
      { type: 'dir', name: 'assets/img' },
      { name: 'assets/img/logo.bin', content: binary },
      { name: 'assets/site.css', content: 'body{}' },
      { name: 'empty.txt', content: '' },
    ]);
    const read = await readAll(archive);
    expect(read.map((e) => e.path)).toEqual(['index.html', 'assets/img/logo.bin', 'assets/site.css', 'empty.txt']);
    expect(read[0]!.data.toString()).toBe('<h1>hi</h1>');
    expect(read[1]!.data.equals(binary)).toBe(true);
    expect(read[3]!.data.length).toBe(0);
  });

  it('removes a leading "./" and keeps a single top-level folder as is', async () => {
    const archive = await make([
      { type: 'dir', name: './' },
      { type: 'dir', name: './site' },
      { name: './site/index.html', content: 'x' },
      { name: './site/a/b.js', content: 'y' },
    ]);
    expect(texts(await readAll(archive))).toEqual([
      ['site/index.html', 'x'],
      ['site/a/b.js', 'y'],
    ]);
  });

  it('reads a stream delivered one byte at a time', async () => {
    const archive = await make([{ name: 'index.html', content: 'one byte at a time' }]);
    expect(texts(await readAll(chunked(archive, 1)))).toEqual([['index.html', 'one byte at a time']]);
  });

  it('skips the rest of an entry the consumer destroyed or ignored, and goes on', async () => {
    const big = Buffer.alloc(300_000, 7);
    const archive = await make([
      { name: 'big.bin', content: big },
      { name: 'ignored.bin', content: big },
      { name: 'index.html', content: 'after' },
    ]);
    const seen: string[] = [];
    for await (const entry of readArchive(chunked(archive, 1000), LIMITS, tmp)) {
      seen.push(entry.path);
      if (entry.path === 'big.bin') {
        for await (const _ of entry.content) break; // reads one chunk, then destroys
      } else if (entry.path === 'index.html') {
        for await (const chunk of entry.content) seen.push(chunk.toString());
      }
    }
    // A zip's small entries are handed over as the upload arrives; its larger ones follow
    // from the spool file once the central directory is read.
    expect(seen).toEqual(format === 'zip' ? ['index.html', 'after', 'big.bin', 'ignored.bin'] : ['big.bin', 'ignored.bin', 'index.html', 'after']);
  });

  it('cleans up when the consumer stops early', async () => {
    const archive = await make([
      { name: 'a.html', content: 'a' },
      { name: 'b.html', content: 'b' },
    ]);
    const source = chunked(archive, 100);
    for await (const entry of readArchive(source, LIMITS, tmp)) {
      expect(entry.path).toBe('a.html');
      break; // return() on the generator; afterEach checks the spool file is gone
    }
    expect(source.destroyed).toBe(true);
  });

  it('accepts exactly maxEntries entries (directories count) and refuses one more', async () => {
    const entries: TestEntry[] = [{ type: 'dir', name: 'd' }, ...[1, 2, 3].map((i) => ({ name: `d/${i}.txt`, content: 'x' }))];
    expect(await readAll(await make(entries), { maxEntries: 4, maxBytes: 100 })).toHaveLength(3);
    const error = await rejection(readAll(await make(entries), { maxEntries: 3, maxBytes: 100 }));
    expect(error).toBeInstanceOf(TooLargeError);
    expect(error.message).toMatch(/more than (the limit of )?3/);
  });

  it('accepts exactly maxBytes extracted bytes and refuses one more', async () => {
    const archive = await make([
      { name: 'a.bin', content: Buffer.alloc(600) },
      { name: 'b.bin', content: Buffer.alloc(400) },
    ]);
    expect(await readAll(archive, { maxEntries: 10, maxBytes: 1000 })).toHaveLength(2);
    const error = await rejection(readAll(archive, { maxEntries: 10, maxBytes: 999 }));
    expect(error).toBeInstanceOf(TooLargeError);
    expect(error.message).toContain('"b.bin"');
  });

  it.each<[string, TestEntry[], string]>([
    ['a "../" escape', [{ name: '../evil.html', content: 'x' }], '"../evil.html"'],
    ['a nested escape', [{ name: 'a/../../evil.html', content: 'x' }], '".."'],
    ['an absolute path', [{ name: '/etc/passwd', content: 'x' }], 'absolute'],
    ['a Windows drive letter', [{ name: 'C:/windows/x', content: 'x' }], 'drive letter'],
    ['a backslash', [{ name: 'a\\b.html', content: 'x' }], 'backslash'],
    ['a symbolic link', [{ type: 'symlink', name: 'link', target: '/etc/passwd' }], 'symbolic link'],
    ['a character device', [{ type: 'chardev', name: 'tty' }], 'character device'],
    ['a block device', [{ type: 'blockdev', name: 'sda' }], 'block device'],
    ['a FIFO', [{ type: 'fifo', name: 'pipe' }], 'FIFO'],
    ['a duplicate path', [{ name: 'index.html', content: 'a' }, { name: './index.html', content: 'b' }], 'twice'],
    ['a file that is also a directory', [{ name: 'a', content: 'a' }, { name: 'a/b', content: 'b' }], 'directory'],
    ['a directory escaping the root', [{ type: 'dir', name: '../up' }], '".."'],
  ])('refuses %s with a 400 naming the entry', async (_, entries, text) => {
    const error = await rejection(readAll(await make([{ name: 'index.html', content: 'ok' }, ...entries])));
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.message).toContain(text);
  });

  it('refuses a truncated archive', async () => {
    const archive = await make([
      { name: 'index.html', content: 'ok' },
      { name: 'data.bin', content: Buffer.from(Array.from({ length: 50_000 }, (_, i) => (i * 7919) & 0xff)) },
    ]);
    const error = await rejection(readAll(archive.subarray(0, Math.floor(archive.length * 0.6))));
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.message).toMatch(/truncated or corrupt|ended inside/);
  });

  it('refuses corrupt compressed data', async () => {
    const data = Buffer.from(Array.from({ length: 50_000 }, (_, i) => (i * 7919) & 0xff));
    const archive = await make([{ name: 'data.bin', content: data }]);
    const corrupt = Buffer.from(archive);
    for (let i = 200; i < 260; i++) corrupt[i] ^= 0x5a;
    const error = await rejection(readAll(corrupt));
    expect(error).toBeInstanceOf(ValidationError);
  });

  it('stops a bomb at the byte limit with bounded memory', async () => {
    const bomb = await (format === 'zip' ? makeZipBomb(256 << 20) : makeTarGzBomb(256 << 20));
    expect(bomb.length).toBeLessThan(1 << 20);
    const before = process.memoryUsage().rss;
    let delivered = 0;
    const error = await rejection(
      (async () => {
        for await (const entry of readArchive(chunked(bomb), { maxEntries: 10, maxBytes: 4_000_000 }, tmp)) {
          for await (const chunk of entry.content) delivered += chunk.length;
        }
      })(),
    );
    expect(error).toBeInstanceOf(TooLargeError);
    expect(delivered).toBeLessThanOrEqual(4_000_000);
    expect(process.memoryUsage().rss - before).toBeLessThan(64 << 20);
  });
});

describe('readArchive: tar specifics', () => {
  it('refuses a gzip of zero blocks past what its entries may take, without inflating it all', async () => {
    // 64 MB of zero blocks gzip to about 64 KB; the limits allow 1 MB of content in 10 entries.
    const bomb = gzipSync(Buffer.concat([(await makeTar([{ name: 'a', content: 'x' }])).subarray(0, 1024), Buffer.alloc(64 * 1024 * 1024)]));
    const error = await rejection(readAll(bomb, { maxEntries: 10, maxBytes: 1_000_000 }));
    expect(error).toBeInstanceOf(TooLargeError);
    expect(error.message).toContain('inflates to more than');
  });

  it('refuses a hard link', async () => {
    const error = await rejection(readAll(await makeTarGz([{ name: 'a', content: 'x' }, { type: 'hardlink', name: 'b', target: 'a' }])));
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.message).toContain('"b" is a hard link');
  });

  // Entries up to 256 KiB are read whole and handed over; larger ones stream. Each check
  // below runs on both sides of that line.
  describe.each([
    ['a small entry (read whole)', 1_000],
    ['a large entry (streamed)', 400_000],
  ])('%s', (_, size) => {
    const data = Buffer.from(Array.from({ length: size }, (_, i) => (i * 7919) % 251));
    const limits = { maxEntries: 10, maxBytes: 10_000_000 };

    it('is read exactly when the archive arrives in tiny chunks', async () => {
      const archive = await makeTarGz([{ name: 'a.bin', content: data }, { name: 'b.txt', content: 'b' }]);
      const read = await readAll(chunked(archive, 997), limits);
      expect(read.map((e) => e.path)).toEqual(['a.bin', 'b.txt']);
      expect(read[0]!.data.equals(data)).toBe(true);
    });

    it('is refused when the tar ends inside it', async () => {
      const tar = await makeTar([{ name: 'a.bin', content: data }]);
      const cut = gzipSync(tar.subarray(0, 512 + Math.floor(size / 2))); // header + half the data, validly gzipped
      const error = await rejection(readAll(cut, limits));
      expect(error).toBeInstanceOf(ValidationError);
      expect(error.message).toMatch(/ended inside|truncated|unexpected end/i);
    });

    it('counts toward the byte limit, naming the entry', async () => {
      const archive = await makeTarGz([{ name: 'a.bin', content: data }, { name: 'b.bin', content: data }]);
      const error = await rejection(readAll(archive, { maxEntries: 10, maxBytes: size + 10 }));
      expect(error).toBeInstanceOf(TooLargeError);
      expect(error.message).toContain('"b.bin"');
    });
  });

  // The upload reaches gunzip in 1 MiB pieces, copied into two buffers used in turn: an
  // archive of several pieces, arriving in chunks smaller and larger than one, must come
  // out byte for byte (a buffer refilled while zlib still read it would not).
  it('is read exactly when its gzip spans several of gunzip’s input pieces', async () => {
    let x = 0x9e3779b9;
    const noise = (size: number) =>
      Buffer.from(Array.from({ length: size }, () => ((x ^= x << 13), (x ^= x >>> 17), (x ^= x << 5), x & 0xff)));
    const entries = [
      { name: 'a.bin', content: noise(1_500_000) },
      { name: 'b.bin', content: noise(200_000) },
      { name: 'c.bin', content: noise(2_600_000) },
      { name: 'd.txt', content: Buffer.from('d') },
    ];
    const archive = await makeTarGz(entries);
    expect(archive.length).toBeGreaterThan(4 * 1024 * 1024);
    for (const size of [65_537, 3 * 1024 * 1024]) {
      const read = await readAll(chunked(archive, size), { maxEntries: 10, maxBytes: 10_000_000 });
      expect(read.map((e) => e.path)).toEqual(entries.map((e) => e.name));
      for (const [i, entry] of entries.entries()) expect(read[i]!.data.equals(entry.content)).toBe(true);
    }
  });

  it('reads pax headers (long and unicode names) and skips a global pax header', async () => {
    const long = `${'d'.repeat(120)}/${'f'.repeat(120)}.html`;
    const archive = await makeTarGz(
      [
        { name: long, content: 'long' },
        { name: 'ünïcødé.html', content: 'u' },
      ],
      { globalPax: true },
    );
    expect(texts(await readAll(archive))).toEqual([
      [long, 'long'],
      ['ünïcødé.html', 'u'],
    ]);
  });

  it('refuses a NUL in a (pax) name and an empty name', async () => {
    const nul = await rejection(readAll(await makeTarGz([{ name: 'a\0b.html', content: 'x' }], { pax: true })));
    expect(nul).toBeInstanceOf(ValidationError);
    expect(nul.message).toContain('NUL');
    const empty = await rejection(readAll(await makeTarGz([{ name: '', content: 'x' }])));
    expect(empty).toBeInstanceOf(ValidationError);
    expect(empty.message).toContain('empty name');
  });

  it('refuses a gzip that does not hold a tar', async () => {
    const { gzipSync } = await import('node:zlib');
    for (const inner of ['hello, this is not a tar', 'x'.repeat(2000)]) {
      const error = await rejection(readAll(gzipSync(inner)));
      expect(error).toBeInstanceOf(ValidationError);
      expect(error.message).toContain('tar.gz');
    }
  });

  it('reads an empty tar.gz as no entries', async () => {
    expect(await readAll(await makeTarGz([]))).toEqual([]);
  });
});

describe('readArchive: zip specifics', () => {
  it('refuses a NUL and an empty name', async () => {
    for (const [name, text] of [['a\0b.html', 'NUL'], ['', 'empty name']] as const) {
      const error = await rejection(readAll(makeRawZip([{ name, data: Buffer.from('x') }])));
      expect(error).toBeInstanceOf(ValidationError);
      expect(error.message).toContain(text);
    }
  });

  it('refuses an entry whose data fails its CRC-32', async () => {
    const zip = makeRawZip([{ name: 'index.html', data: Buffer.from('hello world'), method: 0 }]);
    zip[30 + 'index.html'.length] ^= 1; // first data byte
    const error = await rejection(readAll(zip));
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.message).toContain('CRC-32');
  });

  it('refuses an entry producing more bytes than it declares', async () => {
    const zip = makeRawZip([{ name: 'a.bin', deflated: { bytes: (await import('node:zlib')).deflateRawSync(Buffer.alloc(100_000)), crc: 0, size: 10 } }]);
    const error = await rejection(readAll(zip));
    expect(error).toBeInstanceOf(ValidationError);
  });

  // Entries up to 256 KiB are read whole and inflated in one bounded call; larger ones
  // stream. Each check below runs on both sides of that line.
  describe.each([
    ['a small entry (read whole)', 1_000],
    ['a large entry (streamed)', 400_000],
  ])('%s', (_, size) => {
    const plain = Buffer.alloc(size, 'abc');
    const limits = { maxEntries: 10, maxBytes: 10_000_000 };

    it('is read exactly, stored or deflated, across cache blocks', async () => {
      // 3 MiB of incompressible padding first, so the entry sits past the first cached blocks.
      const padding = Buffer.from(Array.from({ length: 3 * 1024 * 1024 }, (_, i) => (i * 7919) % 251));
      const zip = makeRawZip([
        { name: 'pad.bin', data: padding, method: 0 },
        { name: 'stored.txt', data: plain, method: 0 },
        { name: 'deflated.txt', data: plain },
      ]);
      const read = (await readAll(zip, limits)).sort((a, b) => (a.path === 'pad.bin' ? -1 : b.path === 'pad.bin' ? 1 : 0));
      expect(read.map((e) => e.path)).toEqual(['pad.bin', 'stored.txt', 'deflated.txt']);
      expect(read[0]!.data.equals(padding)).toBe(true);
      expect(read[1]!.data.equals(plain)).toBe(true);
      expect(read[2]!.data.equals(plain)).toBe(true);
    });

    it('is refused when it inflates to more than it declares', async () => {
      const zip = makeRawZip([{ name: 'a.txt', deflated: { bytes: deflateRawSync(plain), crc: crc32(plain), size: size - 1 } }]);
      expect(await rejection(readAll(zip, limits))).toBeInstanceOf(ValidationError);
    });

    it('is refused when it inflates to fewer bytes than it declares', async () => {
      const zip = makeRawZip([{ name: 'a.txt', deflated: { bytes: deflateRawSync(plain), crc: crc32(plain), size: size + 1 } }]);
      expect(await rejection(readAll(zip, limits))).toBeInstanceOf(ValidationError);
    });

    it('is refused when its deflate stream is cut short', async () => {
      const bytes = deflateRawSync(plain);
      const zip = makeRawZip([{ name: 'a.txt', deflated: { bytes: bytes.subarray(0, bytes.length >> 1), crc: crc32(plain), size } }]);
      expect(await rejection(readAll(zip, limits))).toBeInstanceOf(ValidationError);
    });

    it('is refused when its CRC-32 is wrong', async () => {
      const zip = makeRawZip([{ name: 'a.txt', deflated: { bytes: deflateRawSync(plain), crc: (crc32(plain) ^ 1) >>> 0, size } }]);
      const error = await rejection(readAll(zip, limits));
      expect(error).toBeInstanceOf(ValidationError);
      expect(error.message).toContain('CRC-32');
    });

    it('counts toward the byte limit', async () => {
      const zip = makeRawZip([{ name: 'a.txt', data: plain }, { name: 'b.txt', data: plain }]);
      expect(await rejection(readAll(zip, { maxEntries: 10, maxBytes: size + 10 }))).toBeInstanceOf(TooLargeError);
    });
  });

  it('refuses an archive declaring more entries than the limit before reading any', async () => {
    const zip = makeRawZip(Array.from({ length: 5 }, (_, i) => ({ name: `${i}.txt`, data: Buffer.from('x') })));
    const error = await rejection(readAll(zip, { maxEntries: 4, maxBytes: 100 }));
    expect(error).toBeInstanceOf(TooLargeError);
  });

  it('reads an empty zip as no entries', async () => {
    expect(await readAll(makeRawZip([]))).toEqual([]);
  });

  it('reads a raw zip with stored and deflated entries', async () => {
    const zip = makeRawZip([
      { name: 'index.html', data: Buffer.from('stored'), method: 0 },
      { name: 'a/b.txt', data: Buffer.from('deflated'.repeat(100)) },
    ]);
    expect(texts(await readAll(zip))).toEqual([
      ['index.html', 'stored'],
      ['a/b.txt', 'deflated'.repeat(100)],
    ]);
  });
});

describe('readArchive: format and source', () => {
  it.each([
    ['text', Buffer.from('just some text')],
    ['a PNG', Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex')],
    ['"PK" alone', Buffer.from('PK')],
    ['nothing', Buffer.alloc(0)],
  ])('refuses %s with 415', async (_, bytes) => {
    expect(await rejection(readAll(Readable.from([bytes])))).toBeInstanceOf(UnsupportedMediaTypeError);
  });

  it('turns a failing source into a 400, for both formats', async () => {
    for (const archive of [await makeTarGz([{ name: 'a', content: 'x'.repeat(10_000) }]), await makeZip([{ name: 'a', content: 'x' }])]) {
      const source = Readable.from(
        (async function* () {
          yield archive.subarray(0, 10);
          throw new Error('connection reset');
        })(),
      );
      const error = await rejection(readAll(source));
      expect(error).toBeInstanceOf(ValidationError);
      expect(error.message).toContain('connection reset');
    }
  });
});

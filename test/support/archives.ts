/**
 * Builders of test archives, benign and hostile: tar.gz through tar-stream + zlib, zip
 * through jszip (an independent writer) or, for what jszip cannot express (empty names,
 * bombs streamed without holding their expanded bytes), a minimal hand-written zip writer.
 */
import { readdirSync } from 'node:fs';
import { Readable } from 'node:stream';
import { crc32, createDeflateRaw, createGzip, deflateRawSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import JSZip from 'jszip';
import tar from 'tar-stream';
import { DomainError, TooLargeError, ValidationError } from '../../domain/errors.ts';
import { normaliseEntryPath, type ArchiveLimits } from '../../host/archive/index.ts';
import { readArchive } from './archive-entries.ts';
import { entrySegments } from '../../host/archive/paths.ts';

export type TestEntry =
  | { type?: 'file'; name: string; content?: string | Buffer; mode?: number }
  | { type: 'dir'; name: string }
  | { type: 'symlink' | 'hardlink'; name: string; target: string }
  | { type: 'chardev' | 'blockdev' | 'fifo'; name: string };

const TAR_TYPES = {
  file: 'file',
  dir: 'directory',
  symlink: 'symlink',
  hardlink: 'link',
  chardev: 'character-device',
  blockdev: 'block-device',
  fifo: 'fifo',
} as const;

const UNIX_MODES = { file: 0o100644, dir: 0o040755, symlink: 0o120777, chardev: 0o020644, blockdev: 0o060644, fifo: 0o010644 };

const bytesOf = (content: string | Buffer | undefined): Buffer =>
  Buffer.isBuffer(content) ? content : Buffer.from(content ?? '');

/** Concatenates a readable's output (test archives are small, bombs are compressed). */
async function drain(stream: AsyncIterable<Buffer | Uint8Array>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

export type TarOptions = {
  /** Force pax headers on every entry (how NUL or long names reach the reader). */
  pax?: boolean;
  /** Put a pax global header first, as `git archive` does. */
  globalPax?: boolean;
};

/** A .tar.gz of the entries, names written exactly as given. */
export async function makeTarGz(entries: readonly TestEntry[], options: TarOptions = {}): Promise<Buffer> {
  return gzipSync(await makeTar(entries, options));
}

/** The uncompressed tar of {@link makeTarGz} (to corrupt the tar layer under a valid gzip). */
export async function makeTar(entries: readonly TestEntry[], options: TarOptions = {}): Promise<Buffer> {
  const pack = tar.pack();
  const packed = drain(pack as unknown as AsyncIterable<Buffer>);
  if (options.globalPax) {
    // tar-stream cannot write a global header: write a file entry, retype it below.
    const record = ' comment=test archive\n';
    pack.entry({ name: 'pax_global_header' }, `${record.length + 2}${record}`);
  }
  for (const entry of entries) {
    const type = entry.type ?? 'file';
    const header = {
      name: entry.name,
      type: TAR_TYPES[type],
      mode: type === 'dir' ? 0o755 : 0o644,
      mtime: new Date(0),
      // An empty name cannot be a pax path (tar-stream would write "PaxHeader" instead).
      ...(options.pax && entry.name !== '' ? { pax: {} } : {}),
      ...(entry.type === 'symlink' || entry.type === 'hardlink' ? { linkname: entry.target } : {}),
    } as tar.Header;
    const body = entry.type === undefined || entry.type === 'file' ? bytesOf(entry.content) : undefined;
    pack.entry(header, body ?? Buffer.alloc(0));
  }
  pack.finalize();
  const archive = await packed;
  if (options.globalPax) retype(archive.subarray(0, 512), 'g');
  return archive;
}

/** Rewrites a tar header's type flag and checksum in place. */
function retype(header: Buffer, flag: string): void {
  header.write(flag, 156, 'latin1');
  header.fill(' ', 148, 156);
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
}

/** A .zip of the entries via jszip (unix attributes, so links and devices carry their mode). */
export async function makeZip(entries: readonly TestEntry[]): Promise<Buffer> {
  const zip = new JSZip();
  for (const entry of entries) {
    const type = entry.type ?? 'file';
    if (entry.type === 'hardlink') throw new Error('zip has no hard links');
    if (entry.type === 'dir') {
      const name = entry.name.endsWith('/') ? entry.name : `${entry.name}/`;
      zip.file(name, null, { dir: true, unixPermissions: UNIX_MODES.dir, createFolders: false });
      continue;
    }
    const data = entry.type === 'symlink' ? entry.target : entry.type === undefined || entry.type === 'file' ? bytesOf(entry.content) : '';
    const mode = type === 'file' ? ((entry as { mode?: number }).mode ?? UNIX_MODES.file) : UNIX_MODES[type as keyof typeof UNIX_MODES];
    zip.file(entry.name, data, { unixPermissions: mode, createFolders: false, binary: true });
  }
  return zip.generateAsync({ type: 'nodebuffer', platform: 'UNIX', compression: 'DEFLATE' });
}

export type RawZipEntry = {
  /** Written byte for byte (UTF-8 flag set), so any name can be expressed, even "". */
  name: string;
  /** Uncompressed bytes (stored or deflated here), or already-deflated data with its crc and size. */
  data?: Buffer;
  deflated?: { bytes: Buffer; crc: number; size: number };
  method?: 0 | 8;
  /** Unix mode for the external attributes' high 16 bits. */
  mode?: number;
};

/** A zip written by hand: local headers, data, central directory, end record (no zip64). */
export function makeRawZip(entries: readonly RawZipEntry[]): Buffer {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const method = entry.deflated ? 8 : (entry.method ?? 8);
    const plain = entry.data ?? Buffer.alloc(0);
    const data = entry.deflated?.bytes ?? (method === 8 ? deflateRawSync(plain) : plain);
    const crc = entry.deflated?.crc ?? crc32(plain);
    const size = entry.deflated?.size ?? plain.length;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    const header = Buffer.alloc(46);
    header.writeUInt32LE(0x02014b50, 0);
    header.writeUInt16LE((3 << 8) | 20, 4); // made by unix
    header.writeUInt16LE(20, 6);
    header.writeUInt16LE(0x0800, 8);
    header.writeUInt16LE(method, 10);
    header.writeUInt32LE(crc, 16);
    header.writeUInt32LE(data.length, 20);
    header.writeUInt32LE(size, 24);
    header.writeUInt16LE(name.length, 28);
    header.writeUInt32LE(((entry.mode ?? UNIX_MODES.file) << 16) >>> 0, 38);
    header.writeUInt32LE(offset, 42);
    parts.push(local, name, data);
    central.push(header, name);
    offset += local.length + name.length + data.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...parts, directory, end]);
}

const ZEROS = Buffer.alloc(1 << 20);

/** Yields `bytes` zeros in 1 MiB chunks (the same chunk each time: memory stays flat). */
function* zeros(bytes: number): Generator<Buffer> {
  for (let left = bytes; left > 0; left -= ZEROS.length) yield left >= ZEROS.length ? ZEROS : ZEROS.subarray(0, left);
}

/** Deflates `bytes` zeros as a stream; returns only the (small) compressed result and its crc. */
export async function deflateZeros(bytes: number): Promise<{ bytes: Buffer; crc: number; size: number }> {
  let crc = 0;
  const source = Readable.from(
    (function* () {
      for (const chunk of zeros(bytes)) {
        crc = crc32(chunk, crc);
        yield chunk;
      }
    })(),
    { objectMode: false },
  );
  const compressed = await drain(source.pipe(createDeflateRaw({ level: 9 })));
  return { bytes: compressed, crc, size: bytes };
}

/** A zip with an index.html and one entry of `bytes` zeros (1 GB compresses to about 1 MB). */
export async function makeZipBomb(bytes: number): Promise<Buffer> {
  const deflated = await deflateZeros(bytes);
  return makeRawZip([{ name: 'index.html', data: Buffer.from('<h1>bomb</h1>') }, { name: 'zeros.bin', deflated }]);
}

/** A tar.gz with an index.html and one entry of `bytes` zeros, built as a stream. */
export async function makeTarGzBomb(bytes: number): Promise<Buffer> {
  const pack = tar.pack();
  const gzipped = drain(pack.pipe(createGzip({ level: 9 })));
  pack.entry({ name: 'index.html' }, '<h1>bomb</h1>');
  const sink = pack.entry({ name: 'zeros.bin', size: bytes });
  for (const chunk of zeros(bytes)) {
    if (!sink.write(chunk)) await new Promise<void>((resolve) => sink.once('drain', () => resolve()));
  }
  await new Promise<void>((resolve, reject) => sink.end((error?: Error | null) => (error ? reject(error) : resolve())));
  pack.finalize();
  return gzipped;
}

/** A readable that delivers `buffer` in chunks of `size` bytes (exercises format detection on tiny chunks). */
export function chunked(buffer: Buffer, size = 64 * 1024): Readable {
  return Readable.from(
    (function* () {
      for (let i = 0; i < buffer.length; i += size) yield buffer.subarray(i, i + size);
    })(),
    { objectMode: false },
  );
}

// ---- Fuzzing helpers (test/unit/archive-fuzz.test.ts, test/faults/fuzz-archive.test.ts) ----

/** One byte-level change; `at` is taken modulo the length, negative counts from the end. */
export type Mutation =
  | { kind: 'flip'; at: number; bit: number }
  | { kind: 'truncate'; at: number }
  | { kind: 'insert' | 'overwrite'; at: number; bytes: Uint8Array };

export function mutate(buffer: Buffer, mutations: readonly Mutation[]): Buffer {
  let out = Buffer.from(buffer);
  for (const m of mutations) {
    if (out.length === 0) break;
    const at = ((m.at % out.length) + out.length) % out.length;
    if (m.kind === 'flip') out[at] = out[at]! ^ (1 << m.bit);
    else if (m.kind === 'truncate') out = out.subarray(0, at);
    else if (m.kind === 'insert') out = Buffer.concat([out.subarray(0, at), m.bytes, out.subarray(at)]);
    else out.set(m.bytes.subarray(0, out.length - at), at);
  }
  return out;
}

/** What a yielded path must always be: relative, no `.`/`..`/empty segment, no NUL or backslash. */
export function isSafeEntryPath(path: string): boolean {
  if (path === '' || path.includes('\0') || path.includes('\\') || path.startsWith('/') || /^[A-Za-z]:/.test(path)) return false;
  return path.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..');
}

export type Probe = {
  entries: { path: string; size: number }[];
  /** Bytes handed to the consumer over all entries. */
  delivered: number;
  error?: unknown;
};

/**
 * Reads an archive like the publish handler would (every entry fully), recording what came
 * out and how it ended. A hang is reported as an error rather than stalling the fuzzer.
 */
export async function probeArchive(
  read: (source: Readable) => AsyncGenerator<{ path: string; content: AsyncIterable<Uint8Array> }>,
  archive: Buffer,
  chunkSize: number,
  timeoutMs = 10_000,
): Promise<Probe> {
  const probe: Probe = { entries: [], delivered: 0 };
  const run = (async () => {
    for await (const entry of read(chunked(archive, chunkSize))) {
      let size = 0;
      for await (const chunk of entry.content) {
        size += (chunk as Buffer).length;
        probe.delivered += (chunk as Buffer).length;
      }
      probe.entries.push({ path: entry.path, size });
    }
  })();
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`archive reader hung for ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([run, hang]);
  } catch (error) {
    probe.error = error;
  } finally {
    clearTimeout(timer);
  }
  return probe;
}

// ---- fast-check properties, shared by the quick unit run and the long faults run ----

const PATH_PIECES = ['a', 'b.html', '.', '..', '/', '//', '\\', ':', 'C:', '\0', '...', 'é', ' ', './', '../', '%2e%2e'];

/** Raw entry names, biased towards the characters that make paths dangerous. */
export const rawNameArb: fc.Arbitrary<string> = fc.oneof(
  fc.array(fc.constantFrom(...PATH_PIECES), { maxLength: 8 }).map((pieces) => pieces.join('')),
  fc.string({ unit: 'binary', maxLength: 24 }),
);

/** Random limits small enough to be hit by the generated archives. */
export const limitsArb: fc.Arbitrary<ArchiveLimits> = fc.record({
  maxEntries: fc.integer({ min: 1, max: 30 }),
  maxBytes: fc.integer({ min: 0, max: 60_000 }),
});

const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('flip' as const), at: fc.integer({ min: -400, max: 1 << 20 }), bit: fc.integer({ min: 0, max: 7 }) }),
  fc.record({ kind: fc.constant('truncate' as const), at: fc.integer({ min: -400, max: 1 << 20 }) }),
  fc.record({
    kind: fc.constantFrom('insert' as const, 'overwrite' as const),
    at: fc.integer({ min: -400, max: 1 << 20 }),
    bytes: fc.uint8Array({ minLength: 1, maxLength: 16 }),
  }),
);
export const mutationsArb = fc.array(mutationArb, { minLength: 1, maxLength: 4 });

const contentArb = fc.oneof(
  fc.uint8Array({ maxLength: 2_000 }).map((bytes) => Buffer.from(bytes)),
  fc.integer({ min: 0, max: 40_000 }).map((size) => Buffer.alloc(size, 0x61)), // compresses well: hits maxBytes
);

/** Entries of every kind with hostile names, for random (not mutated) archives. */
export const hostileEntriesArb: fc.Arbitrary<TestEntry[]> = fc.array(
  fc.oneof(
    { weight: 6, arbitrary: fc.record({ name: rawNameArb.filter((n) => !n.endsWith('/')), content: contentArb }) },
    { weight: 1, arbitrary: fc.record({ type: fc.constant('dir' as const), name: rawNameArb }) },
    { weight: 1, arbitrary: fc.record({ type: fc.constantFrom('symlink' as const, 'hardlink' as const), name: rawNameArb, target: rawNameArb }) },
    { weight: 1, arbitrary: fc.record({ type: fc.constantFrom('chardev' as const, 'blockdev' as const, 'fifo' as const), name: rawNameArb }) },
  ),
  { maxLength: 12 },
);

/** Safe, unique file paths by construction (directory segments never contain the ".f" of file names). */
export const cleanEntriesArb: fc.Arbitrary<TestEntry[]> = fc
  .uniqueArray(fc.array(fc.stringMatching(/^[a-z]{1,3}$/), { minLength: 1, maxLength: 3 }), {
    selector: (segments) => segments.join('/'),
    maxLength: 12,
  })
  .chain((paths) =>
    fc.tuple(...paths.map(() => contentArb)).map((contents) =>
      paths.map((segments, i): TestEntry => ({ name: `${i % 2 ? './' : ''}${segments.join('/')}.f`, content: contents[i] })),
    ),
  );

/** The same entries as a .tar.gz (pax names: any string survives) or as a hand-written zip. */
export async function buildArchive(format: 'tar.gz' | 'zip', entries: readonly TestEntry[]): Promise<Buffer> {
  if (format === 'tar.gz') return makeTarGz(entries, { pax: true });
  return makeRawZip(
    entries.map((entry): RawZipEntry => {
      if (entry.type === 'dir') return { name: `${entry.name}/`, mode: UNIX_MODES.dir };
      if (entry.type === 'symlink' || entry.type === 'hardlink') return { name: entry.name, data: Buffer.from(entry.target), mode: UNIX_MODES.symlink };
      if (entry.type !== undefined && entry.type !== 'file') return { name: entry.name, mode: UNIX_MODES[entry.type] };
      return { name: entry.name, data: bytesOf(entry.content) };
    }),
  );
}

/** Breaks a fast-check run with a readable reason (no vitest `expect` here: fast-check shrinks on throw). */
function check(condition: boolean, reason: string, detail?: unknown): void {
  if (!condition) throw new Error(`${reason}${detail === undefined ? '' : `: ${JSON.stringify(detail)}`}`);
}

/** The invariants every read must keep, whatever the input. */
export function checkProbe(probe: Probe, limits: ArchiveLimits, tmpDir: string): void {
  check(probe.error === undefined || probe.error instanceof DomainError, 'a non-domain error escaped', String(probe.error));
  for (const { path } of probe.entries) check(isSafeEntryPath(path), 'an unsafe path was yielded', path);
  check(new Set(probe.entries.map((e) => e.path)).size === probe.entries.length, 'a path was yielded twice');
  check(probe.delivered <= limits.maxBytes, 'more than maxBytes delivered', { delivered: probe.delivered, limits });
  check(probe.entries.length <= limits.maxEntries, 'more than maxEntries yielded');
  check(readdirSync(tmpDir).length === 0, 'a temporary file was left behind', readdirSync(tmpDir));
}

const read = (limits: ArchiveLimits, tmpDir: string) => (source: Readable) => readArchive(source, limits, tmpDir);
const formatArb = fc.constantFrom('tar.gz' as const, 'zip' as const);
const chunkArb = fc.constantFrom(1, 7, 512, 65_536);

/** Properties of the archive reader and of the path parser, to run with any number of runs. */
export function archiveProperties(tmpDir: string, bases: { tarGz: Buffer; tar: Buffer; zip: Buffer }) {
  return {
    /** normaliseEntryPath: only ValidationError, and what it returns is safe, canonical and faithful. */
    paths: fc.property(rawNameArb, (raw) => {
      let path: string;
      try {
        path = normaliseEntryPath(raw);
      } catch (error) {
        check(error instanceof ValidationError, 'normaliseEntryPath threw a non-ValidationError', String(error));
        return;
      }
      check(isSafeEntryPath(path), 'normaliseEntryPath returned an unsafe path', { raw, path });
      check(normaliseEntryPath(path) === path, 'normaliseEntryPath is not idempotent', { raw, path });
      const kept = raw.split('/').filter((s) => s !== '' && s !== '.');
      check(kept.join('/') === path, 'normaliseEntryPath changed a segment', { raw, path });
    }),

    /** Mutated valid archives (compressed layer, tar layer under a valid gzip, zip). */
    mutated: fc.asyncProperty(
      fc.constantFrom('tar.gz', 'tar', 'zip'),
      mutationsArb,
      limitsArb,
      chunkArb,
      async (layer, mutations, limits, chunk) => {
        const archive =
          layer === 'tar' ? gzipSync(mutate(bases.tar, mutations)) : mutate(layer === 'zip' ? bases.zip : bases.tarGz, mutations);
        checkProbe(await probeArchive(read(limits, tmpDir), archive, chunk), limits, tmpDir);
      },
    ),

    /** Random archives full of hostile entries: bad ones are always refused. */
    hostile: fc.asyncProperty(formatArb, hostileEntriesArb, limitsArb, chunkArb, async (format, entries, limits, chunk) => {
      const probe = await probeArchive(read(limits, tmpDir), await buildArchive(format, entries), chunk);
      checkProbe(probe, limits, tmpDir);
      const unsafe = entries.some((e) => {
        if (e.type !== undefined && e.type !== 'file' && e.type !== 'dir') return true;
        try {
          if (e.type === 'dir') entrySegments(e.name);
          else normaliseEntryPath(e.name);
          return false;
        } catch {
          return true;
        }
      });
      if (unsafe) check(probe.error instanceof DomainError, 'an archive with a bad entry was accepted', entries.map((e) => e.name));
      if (probe.error instanceof TooLargeError) {
        const total = entries.reduce((sum, e) => sum + (e.type === undefined || e.type === 'file' ? bytesOf(e.content).length : 0), 0);
        check(entries.length > limits.maxEntries || total > limits.maxBytes, 'TooLargeError within the limits', { limits, total });
      }
    }),

    /** Clean archives within the limits read back exactly; over a limit they are refused with 413. */
    clean: fc.asyncProperty(formatArb, cleanEntriesArb, limitsArb, chunkArb, async (format, entries, limits, chunk) => {
      const probe = await probeArchive(read(limits, tmpDir), await buildArchive(format, entries), chunk);
      checkProbe(probe, limits, tmpDir);
      const expected = entries.map((e) => ({ path: normaliseEntryPath(e.name), size: bytesOf((e as { content?: Buffer }).content).length }));
      const total = expected.reduce((sum, e) => sum + e.size, 0);
      if (entries.length <= limits.maxEntries && total <= limits.maxBytes) {
        check(probe.error === undefined, 'a clean archive was refused', String(probe.error));
        // A zip hands over its small entries as they arrive and its others after the central
        // directory: the same entries, in another order.
        const inOrder = format === 'zip' ? (list: { path: string }[]) => [...list].sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0)) : (list: { path: string }[]) => list;
        check(JSON.stringify(inOrder(probe.entries)) === JSON.stringify(inOrder(expected)), 'entries differ', { got: probe.entries, expected });
      } else {
        check(probe.error instanceof TooLargeError, 'an archive over the limits was not refused with 413', String(probe.error));
      }
    }),
  };
}

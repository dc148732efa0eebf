/**
 * Builders of test archives, benign and hostile: tar.gz through tar-stream + zlib, zip
 * through jszip (an independent writer) or, for what jszip cannot express (empty names,
 * bombs streamed without holding their expanded bytes), a minimal hand-written zip writer.
 */
import { Readable } from 'node:stream';
import { crc32, createDeflateRaw, createGzip, deflateRawSync, gzipSync } from 'node:zlib';
import JSZip from 'jszip';
import tar from 'tar-stream';

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

export const UNIX_MODES = { file: 0o100644, dir: 0o040755, symlink: 0o120777, chardev: 0o020644, blockdev: 0o060644, fifo: 0o010644 };

export const bytesOf = (content: string | Buffer | undefined): Buffer =>
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

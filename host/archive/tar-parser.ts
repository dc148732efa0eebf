/**
 * A tar parser fed chunk by chunk and read synchronously: `next()` gives the next entry's
 * header, then the pieces of its data (views of the chunks), until the chunk is used up.
 *
 * Why not tar-stream: it makes a stream per entry and decodes every header field into
 * strings; for a site of 5,000 small files that was a third of the publish's garbage on
 * the main thread, and young collections then promote the upload's buffers. This keeps
 * tar-stream's reading of the format, field for field: ustar and GNU headers (others are
 * refused), the checksum, base-256 sizes, the ustar prefix, a trailing '/' as a folder, GNU
 * long names, pax headers (a global one merged into the next per-entry one, as tar-stream
 * does), zero blocks skipped, and an end inside a header or an entry's data refused.
 */
export type TarHeader = { name: string; type: string | null; size: number };
export type TarEvent = { header: TarHeader; data?: undefined } | { data: Buffer; header?: undefined };

const BLOCK = 512;
/** The largest pax or long-name header read (tar-stream's bound). */
const MAX_META = 4 * 1024 * 1024;
const USTAR = [0x75, 0x73, 0x74, 0x61, 0x72, 0x00, 0x30, 0x30]; // "ustar\0" "00"
const GNU = [0x75, 0x73, 0x74, 0x61, 0x72, 0x20, 0x20, 0x00]; // "ustar " " \0"
const TYPES: Record<number, string> = {
  0: 'file',
  1: 'link',
  2: 'symlink',
  3: 'character-device',
  4: 'block-device',
  5: 'directory',
  6: 'fifo',
  7: 'contiguous-file',
  72: 'pax-header',
  55: 'pax-global-header',
  27: 'gnu-long-link-path',
  28: 'gnu-long-path',
  30: 'gnu-long-path',
};
const META = new Set(['pax-header', 'pax-global-header', 'gnu-long-path', 'gnu-long-link-path']);

export class TarParser {
  private chunk: Buffer = Buffer.alloc(0);
  private pos = 0;
  /** A header cut by a chunk's end, gathered here. */
  private readonly block = Buffer.alloc(BLOCK);
  private blockFill = 0;
  /** Data bytes of the current entry still to come, then the padding to the next block. */
  private missing = 0;
  private padding = 0;
  /** A pax or long-name header's data being gathered. */
  private meta: { type: string; bytes: Buffer; filled: number } | undefined;
  private pax: Record<string, string> | null = null;
  private paxGlobal: Record<string, string> | null = null;
  private longPath: string | null = null;

  /** The next chunk; the previous one must have been read to its end (`next()` gave undefined). */
  feed(chunk: Buffer): void {
    this.chunk = chunk;
    this.pos = 0;
  }

  /** The next header or data piece; undefined when the chunk is used up. Throws on a bad header. */
  next(): TarEvent | undefined {
    for (;;) {
      const available = this.chunk.length - this.pos;
      if (this.missing > 0) {
        if (available === 0) return undefined;
        const take = Math.min(this.missing, available);
        const data = this.chunk.subarray(this.pos, this.pos + take);
        this.pos += take;
        this.missing -= take;
        if (!this.meta) return { data };
        data.copy(this.meta.bytes, this.meta.filled);
        this.meta.filled += take;
        if (this.missing === 0) this.applyMeta();
        continue;
      }
      if (this.padding > 0) {
        if (available === 0) return undefined;
        const take = Math.min(this.padding, available);
        this.pos += take;
        this.padding -= take;
        continue;
      }
      let block: Buffer;
      if (this.blockFill === 0 && available >= BLOCK) {
        block = this.chunk.subarray(this.pos, this.pos + BLOCK);
        this.pos += BLOCK;
      } else {
        if (available === 0) return undefined;
        const take = Math.min(BLOCK - this.blockFill, available);
        this.chunk.copy(this.block, this.blockFill, this.pos, this.pos + take);
        this.blockFill += take;
        this.pos += take;
        if (this.blockFill < BLOCK) return undefined;
        this.blockFill = 0;
        block = this.block;
      }
      const header = decodeHeader(block);
      if (!header) continue; // a zero block (the end marker, or padding of the last record)
      if (header.type !== null && META.has(header.type)) {
        if (header.size > MAX_META) throw new Error('Header exceeds max size');
        this.meta = { type: header.type, bytes: Buffer.alloc(header.size), filled: 0 };
        this.missing = header.size;
        this.padding = overflow(header.size);
        if (header.size === 0) this.applyMeta();
        continue;
      }
      this.applyLongHeaders(header);
      if (!(header.size >= 0)) throw new Error('Invalid header');
      // Like tar-stream, a folder has no data, whatever its size field says.
      if (header.type !== 'directory') {
        this.missing = header.size;
        this.padding = overflow(header.size);
      }
      return { header };
    }
  }

  /** The input is over: throws unless it ended between entries. */
  end(): void {
    if (this.missing > 0 || this.padding > 0 || this.blockFill > 0 || this.meta) throw new Error('Unexpected end of data');
  }

  private applyMeta(): void {
    const { type, bytes } = this.meta!;
    this.meta = undefined;
    if (type === 'gnu-long-path') this.longPath = cString(bytes, 0, bytes.length);
    else if (type === 'pax-global-header') this.paxGlobal = decodePax(bytes);
    else if (type === 'pax-header') this.pax = this.paxGlobal === null ? decodePax(bytes) : { ...this.paxGlobal, ...decodePax(bytes) };
    // A long link name only names a link's target, and links are refused anyway.
  }

  private applyLongHeaders(header: TarHeader): void {
    if (this.longPath !== null) {
      header.name = this.longPath;
      this.longPath = null;
    }
    if (this.pax) {
      if (this.pax.path) header.name = this.pax.path;
      if (this.pax.size) header.size = Number.parseInt(this.pax.size, 10);
      this.pax = null;
    }
  }
}

/** Bytes from the end of `size` bytes of data to the next block. */
const overflow = (size: number): number => {
  const rest = size & 511;
  return rest && BLOCK - rest;
};

function decodeHeader(block: Buffer): TarHeader | null {
  let sum = 8 * 32;
  for (let i = 0; i < 148; i++) sum += block[i]!;
  for (let i = 156; i < BLOCK; i++) sum += block[i]!;
  if (sum === 8 * 32) return null; // checksum of a zero block
  if (sum !== decodeOct(block, 148, 8)) throw new Error('Invalid tar header. Maybe the tar is corrupted or it needs to be gunzipped?');
  let typeflag = block[156] === 0 ? 0 : block[156]! - 0x30;
  let name = cString(block, 0, 100);
  if (matches(block, USTAR)) {
    if (block[345]) name = `${cString(block, 345, 155)}/${name}`;
  } else if (!matches(block, GNU)) {
    throw new Error('Invalid tar header: unknown format.');
  }
  if (typeflag === 0 && name.endsWith('/')) typeflag = 5;
  return { name, type: TYPES[typeflag] ?? null, size: decodeOct(block, 124, 12) };
}

/** Magic at 257 and version at 263 (tar-stream compares the GNU version, not ustar's). */
function matches(block: Buffer, magic: readonly number[]): boolean {
  const length = magic === GNU ? 8 : 6;
  for (let i = 0; i < length; i++) if (block[257 + i] !== magic[i]) return false;
  return true;
}

/** UTF-8 up to the first NUL within the field. */
function cString(bytes: Buffer, offset: number, length: number): string {
  let end = offset;
  const limit = offset + length;
  while (end < limit && bytes[end] !== 0) end++;
  return bytes.toString('utf8', offset, end);
}

/** An octal field as tar-stream reads it: base-256 when the high bit is set, else octal digits. */
function decodeOct(bytes: Buffer, offset: number, length: number): number {
  const field = bytes.subarray(offset, offset + length);
  if (field[0]! & 0x80) return parse256(field);
  let start = 0;
  while (start < field.length && field[start] === 0x20) start++;
  let end = field.indexOf(0x20, start);
  if (end === -1) end = field.length;
  while (start < end && field[start] === 0) start++;
  if (start === end) return 0;
  // The usual field: octal digits, then NULs. Anything else is read by parseInt, as tar-stream does.
  let value = 0;
  let i = start;
  for (; i < end && field[i]! >= 0x30 && field[i]! <= 0x37; i++) value = value * 8 + (field[i]! - 0x30);
  let rest = i;
  while (rest < end && field[rest] === 0) rest++;
  if (i > start && rest === end) return value;
  return Number.parseInt(field.toString('utf8', start, end), 8);
}

function parse256(field: Buffer): number {
  const positive = field[0] === 0x80;
  if (!positive && field[0] !== 0xff) return 0; // tar-stream reads null, which then counts as 0
  let sum = 0;
  for (let i = 1; i < field.length; i++) sum = sum * 256 + (positive ? field[i]! : 0xff - field[i]!);
  return positive ? sum : -sum;
}

/** pax records "<length> <key>=<value>\n", read as tar-stream reads them. */
function decodePax(bytes: Buffer): Record<string, string> {
  const result: Record<string, string> = {};
  let buf = bytes;
  while (buf.length) {
    let i = 0;
    while (i < buf.length && buf[i] !== 32) i++;
    const len = Number.parseInt(buf.toString('utf8', 0, i), 10);
    if (!len) return result;
    const record = buf.toString('utf8', i + 1, len - 1);
    const keyIndex = record.indexOf('=');
    if (keyIndex === -1) return result;
    result[record.slice(0, keyIndex)] = record.slice(keyIndex + 1);
    buf = buf.subarray(len);
  }
  return result;
}

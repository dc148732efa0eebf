import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { projectRoot } from '../root.ts';

/**
 * A tar parser fed chunk by chunk and read synchronously: `next()` gives the next entry's
 * header, then the pieces of its data (views of the chunks), until the chunk is used up.
 *
 * Why not tar-stream's extract: it makes a stream per entry, and reading an entry through
 * it takes a dozen promises and callbacks, where here the entries of an inflated chunk are
 * taken in one synchronous run (tar.ts inflates the next chunks meanwhile). Measured
 * alone, reading the publish benchmark's archive, the CPU it saves is within the noise;
 * the gain is in the pipeline around it. The headers are still read by tar-stream's own
 * code (headers.js: checksum, octal and base-256 fields, ustar and GNU magic, the ustar
 * prefix, pax records, GNU long names); what is here is the framing around it, as
 * extract.js does it: a header block, the entry's data, the padding to the next block,
 * zero blocks skipped, pax and long-name headers applied to the entry after them (a
 * global pax header merged into the next per-entry one), and an end inside a header or
 * an entry's data refused.
 */
export type TarHeader = { name: string; type: string | null; size: number };
export type TarEvent = { header: TarHeader; data?: undefined } | { data: Buffer; header?: undefined };

const BLOCK = 512;
/** The largest pax or long-name header read (tar-stream's bound). */
const MAX_META = 4 * 1024 * 1024;
type DecodedHeader = { name: string; type: string | null; size: number };
type Headers = {
  decode(block: Buffer, filenameEncoding: string, allowUnknownFormat: boolean): DecodedHeader | null;
  decodePax(bytes: Buffer): Record<string, string>;
  decodeLongPath(bytes: Buffer, encoding: string): string;
};
// The package exports only its streams by name; its header codec is the file beside them
// (package.json pins tar-stream's exact version for that reason: an upgrade is a deliberate step,
// checked by the differential test in test/unit/tar-parser.test.ts).
const require = createRequire(join(projectRoot, 'package.json'));
const headers = require(join(dirname(require.resolve('tar-stream')), 'headers.js')) as Headers;

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
      const decoded = headers.decode(block, 'utf-8', false);
      if (!decoded) continue; // a zero block (the end marker, or padding of the last record)
      const header: TarHeader = { name: decoded.name, type: decoded.type, size: decoded.size };
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
    if (type === 'gnu-long-path') this.longPath = headers.decodeLongPath(bytes, 'utf-8');
    else if (type === 'pax-global-header') this.paxGlobal = headers.decodePax(bytes);
    else if (type === 'pax-header') this.pax = this.paxGlobal === null ? headers.decodePax(bytes) : { ...this.paxGlobal, ...headers.decodePax(bytes) };
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

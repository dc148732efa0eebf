import { SMALL_ENTRY } from './types.ts';

const LOCAL_HEADER = 0x04034b50;
const UNICODE_PATH = 0x7075;
/** The longest local header (name and extra field included) waited for across chunks. */
const MAX_HEADER = 4096;

/** A small entry found by its local header while the zip was still arriving. */
export type LocalEntry = {
  /** Offset of its local header in the archive: the key the central directory gives. */
  readonly offset: number;
  readonly flags: number;
  readonly method: number;
  readonly crc32: number;
  readonly compressedSize: number;
  readonly size: number;
  /** The name as stored, and the entry's bytes as stored: valid until the next entry. */
  readonly nameRaw: Buffer;
  readonly data: Buffer;
};

/**
 * Walks a zip's local headers as its bytes arrive, so that entries can be stored while the
 * upload is still coming in (a zip is otherwise read from its end, once all of it is here).
 * It only recognises the plain case — a regular, small (SMALL_ENTRY), non-empty, stored or
 * deflated entry whose sizes are in its header — and hands over those; any other entry is
 * skipped (left for the central directory pass). At anything it does not expect (a data
 * descriptor, zip64 sizes, the central directory itself, stray bytes) it stops for good.
 * Nothing found here is trusted on its own: readZip checks each against the central
 * directory, which must list exactly these entries with the same header fields.
 */
export class LocalEntries {
  /** Bytes pushed so far: the stream offset just past the last chunk. */
  private seen = 0;
  private stopped = false;
  /** The start of a header cut by the end of a chunk (at most MAX_HEADER bytes). */
  private carry: Buffer | undefined;
  /** Bytes of the entry being skipped that have not arrived yet. */
  private skip = 0;
  /** An entry whose data spans chunks, gathered into `assembly`. */
  private gathering: { header: Omit<LocalEntry, 'data'>; filled: number } | undefined;
  private assembly: Buffer | undefined;

  /** The entries complete within the bytes seen so far, `input` included. */
  *push(input: Buffer): Generator<LocalEntry> {
    if (this.stopped) return;
    const chunk = this.carry ? Buffer.concat([this.carry, input]) : input;
    const base = this.seen - (this.carry?.length ?? 0); // stream offset of chunk[0]
    this.seen += input.length;
    this.carry = undefined;
    let pos = 0;
    while (pos < chunk.length) {
      if (this.skip > 0) {
        const take = Math.min(this.skip, chunk.length - pos);
        this.skip -= take;
        pos += take;
        continue;
      }
      if (this.gathering) {
        const { header } = this.gathering;
        const take = Math.min(header.compressedSize - this.gathering.filled, chunk.length - pos);
        chunk.copy(this.assembly!, this.gathering.filled, pos, pos + take);
        this.gathering.filled += take;
        pos += take;
        if (this.gathering.filled < header.compressedSize) continue;
        this.gathering = undefined;
        yield { ...header, data: this.assembly!.subarray(0, header.compressedSize) };
        continue;
      }
      if (chunk.length - pos < 30) break;
      if (chunk.readUInt32LE(pos) !== LOCAL_HEADER) return this.stop();
      const flags = chunk.readUInt16LE(pos + 6);
      const compressedSize = chunk.readUInt32LE(pos + 18);
      const size = chunk.readUInt32LE(pos + 22);
      const nameLength = chunk.readUInt16LE(pos + 26);
      const extraLength = chunk.readUInt16LE(pos + 28);
      // Sizes that follow the data (bit 3) or live in a zip64 field: the walk cannot go on.
      if ((flags & 0x08) !== 0 || compressedSize === 0xffffffff || size === 0xffffffff) return this.stop();
      // An outsized header is not worth gathering byte by byte from a slow sender.
      if (30 + nameLength + extraLength > MAX_HEADER) return this.stop();
      const dataStart = pos + 30 + nameLength + extraLength;
      if (dataStart > chunk.length) break;
      const header = {
        offset: base + pos,
        flags,
        method: chunk.readUInt16LE(pos + 8),
        crc32: chunk.readUInt32LE(pos + 14),
        compressedSize,
        size,
        nameRaw: chunk.subarray(pos + 30, pos + 30 + nameLength),
      };
      pos = dataStart;
      if (!plain(header, chunk.subarray(dataStart - extraLength, dataStart))) {
        this.skip = compressedSize;
        continue;
      }
      if (chunk.length - pos >= compressedSize) {
        const data = chunk.subarray(pos, pos + compressedSize);
        pos += compressedSize;
        yield { ...header, data };
        continue;
      }
      // Its data runs into the next chunks: gathered into one buffer, reused entry after entry.
      this.assembly ??= Buffer.allocUnsafe(SMALL_ENTRY);
      this.gathering = { header: { ...header, nameRaw: Buffer.from(header.nameRaw) }, filled: 0 };
    }
    if (pos < chunk.length) this.carry = Buffer.from(chunk.subarray(pos)); // a header cut short
  }

  /** Hands over nothing more: the rest waits for the central directory. */
  stop(): void {
    this.stopped = true;
    this.carry = this.gathering = this.assembly = undefined;
  }
}

/** The one kind of entry handed over while streaming; the rest wait for the central directory. */
function plain(header: Omit<LocalEntry, 'data'>, extra: Buffer): boolean {
  const { flags, method, compressedSize, size, nameRaw } = header;
  if ((flags & 0x01) !== 0 || (method !== 0 && method !== 8)) return false; // refused later, with its name
  if (size === 0 || compressedSize > SMALL_ENTRY || size > SMALL_ENTRY) return false; // folders, empty and large files
  if (method === 0 && compressedSize !== size) return false;
  if (nameRaw.length === 0 || nameRaw[nameRaw.length - 1] === 0x2f) return false; // a folder's trailing '/'
  // A Unicode path field can rename the entry; its central record decides (yauzl reads it there).
  for (let i = 0; i + 4 <= extra.length; i += 4 + extra.readUInt16LE(i + 2)) {
    if (extra.readUInt16LE(i) === UNICODE_PATH) return false;
  }
  return true;
}

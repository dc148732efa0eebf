import { createReadStream } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import yauzl from 'yauzl';

/** Bytes read from disk at a time; also the most a cached block holds. */
const BLOCK = 1024 * 1024;
/** Blocks kept: the central directory and the entry data are each read front to back. */
const KEPT_BLOCKS = 3;

/**
 * Random access to the spooled zip for yauzl, served from a few cached 1 MiB blocks.
 *
 * Why: yauzl asks for every central-directory record and every local header with its
 * own small read, and reading a site's zip that way is thousands of sequential trips
 * through libuv's thread pool (measured: 1.5 s for a 2,000-file zip that `unzip` extracts
 * in 0.35 s). Both walks go front to back, so a handful of block reads answer them.
 * Memory stays at KEPT_BLOCKS × 1 MiB whatever the archive's size.
 */
export class BlockReader extends yauzl.RandomAccessReader {
  private readonly blocks = new Map<number, Promise<Buffer>>();

  constructor(
    private readonly handle: FileHandle,
    private readonly path: string,
    readonly size: number,
  ) {
    super();
  }

  /**
   * `length` bytes at `position` (fewer at the end of the file). The result may be a view
   * of a cached block, whose memory a later read reuses: use or copy it before the next
   * call. (Reads are sequential: yauzl's, then one entry's data, never two at once.)
   */
  async slice(position: number, length: number): Promise<Buffer> {
    const end = Math.min(position + length, this.size);
    if (end <= position) return Buffer.alloc(0);
    const first = Math.floor(position / BLOCK);
    const last = Math.floor((end - 1) / BLOCK);
    if (first === last) {
      const block = await this.block(first);
      return block.subarray(position - first * BLOCK, end - first * BLOCK);
    }
    const parts: Buffer[] = [];
    for (let i = first; i <= last; i++) {
      const block = await this.block(i);
      const from = i === first ? position - i * BLOCK : 0;
      const to = i === last ? end - i * BLOCK : block.length;
      parts.push(block.subarray(from, to));
    }
    return Buffer.concat(parts, end - position);
  }

  private block(index: number): Promise<Buffer> {
    let block = this.blocks.get(index);
    if (block) {
      // Most recently used goes last, so eviction drops the least recently used.
      this.blocks.delete(index);
      this.blocks.set(index, block);
      return block;
    }
    // The evicted block's memory is read into again: a publish reads its zip through the
    // same few buffers instead of leaving a trail of 1 MiB garbage.
    let reuse: Promise<Buffer> | undefined;
    if (this.blocks.size >= KEPT_BLOCKS) {
      const oldest = this.blocks.keys().next().value!;
      reuse = this.blocks.get(oldest);
      this.blocks.delete(oldest);
    }
    block = this.load(index, reuse);
    this.blocks.set(index, block);
    block.catch(() => this.blocks.delete(index));
    return block;
  }

  private async load(index: number, reuse: Promise<Buffer> | undefined): Promise<Buffer> {
    const start = index * BLOCK;
    const length = Math.min(BLOCK, this.size - start);
    const previous = await reuse?.catch(() => undefined);
    const buffer = previous && previous.buffer.byteLength >= length ? Buffer.from(previous.buffer, previous.byteOffset, length) : Buffer.allocUnsafe(length);
    let filled = 0;
    while (filled < buffer.length) {
      const { bytesRead } = await this.handle.read(buffer, filled, buffer.length - filled, start + filled);
      if (bytesRead === 0) break; // the file shrank under us: callers see a short read
      filled += bytesRead;
    }
    return buffer.subarray(0, filled);
  }

  // yauzl's small reads (end of central directory, directory records, local headers).
  override read(buffer: Buffer, offset: number, length: number, position: number, callback: (err: Error | null, bytesRead?: number) => void): void {
    this.slice(position, length).then(
      (bytes) => callback(null, bytes.copy(buffer, offset)),
      (err: Error) => callback(err),
    );
  }

  // yauzl's streams of entry data: only large entries are read this way (see zip.ts).
  override _readStreamForRange(start: number, end: number): Readable {
    return createReadStream(this.path, { start, end: end - 1, highWaterMark: 256 * 1024 });
  }
}

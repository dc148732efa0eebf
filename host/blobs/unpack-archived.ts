import { crc32, inflateRawSync } from 'node:zlib';
import type { Archived } from '../../domain/ports.ts';

/**
 * An archived entry's content, inflated on the calling thread into one buffer that cannot
 * grow past the declared size (a bomb hits that bound, not our memory), then its size and
 * CRC-32 checked; `archived.corrupt(reason)` is thrown otherwise. What a store without
 * writer threads (S3) does with an archived write, and what reading one as bytes does.
 */
export function unpackArchived({ bytes: raw, deflated, size, crc32: expected, corrupt }: Archived): Buffer {
  let bytes: Buffer;
  if (!deflated) {
    bytes = Buffer.from(raw); // a copy: `raw` may be a view of the reader's cached block
  } else {
    try {
      // One output buffer one byte larger than declared: a conforming entry inflates in a
      // single call into it (the default 16 KiB chunks would allocate several and concatenate
      // them: three times the garbage per file), and a longer one overshoots the bound.
      bytes = inflateRawSync(raw, { maxOutputLength: Math.max(1, size), chunkSize: Math.max(64, size + 1) });
    } catch (error) {
      const e = error as NodeJS.ErrnoException;
      throw corrupt(e.code === 'ERR_BUFFER_TOO_LARGE' ? `inflates to more than its declared ${size} bytes` : `does not inflate (${e.message})`);
    }
  }
  if (bytes.length !== size) throw corrupt(`has ${bytes.length} bytes, not the declared ${size}`);
  if (crc32(bytes) !== expected) throw corrupt('fails its CRC-32 check');
  return bytes;
}

import type { Readable } from 'node:stream';
import type { BlobStore, PutResult } from '../../domain/ports.ts';

/** Files up to this size are read into memory and stored concurrently; larger ones stream. */
const SMALL_FILE = 256 * 1024;
/** Small files being stored at once: bounds memory to about SMALL_FILE × CONCURRENCY. */
const CONCURRENCY = 16;

export type StoredFile = { readonly path: string; readonly put: PutResult };

/**
 * An archive entry's bytes as the archive stores them (raw deflate data or the content
 * itself) and what the archive declares of the content. host/archive yields small zip
 * entries so: a store that can `putArchived` inflates and checks them on its own threads;
 * any other consumer reads the content, which is then inflated and checked on this one.
 */
export type Archived = {
  /** Valid only until the archive's next entry is asked for: copy it or use it before. */
  readonly bytes: Uint8Array;
  readonly deflated: boolean;
  readonly size: number;
  readonly crc32: number;
  /** The error to throw when the content is not what the archive declares. */
  readonly corrupt: (reason: string) => Error;
};
export type ArchivedContent = AsyncIterable<Buffer> & { readonly archived: Archived };

/**
 * What a blob store may add to the port: storing an `Archived` whose bytes it copies before
 * returning, failing with code ERR_CONTENT_MISMATCH (and a reason) when the content is not
 * what was declared. The folder store has it (its writer threads inflate and hash).
 */
export type ArchivedPut = { putArchived(archived: Archived): Promise<PutResult> };

/**
 * A file whose content is already in the store under its digest (an incremental deploy,
 * spec §10, uploaded it or the site held it): it joins the manifest without being read.
 */
export type AlreadyStored = { readonly path: string; readonly stored: { readonly hash: string; readonly size: number } };

/**
 * Stores a stream of files in the blob store. Archive entries arrive one after the other,
 * but most site files are small: those are buffered (bounded) and written concurrently
 * while the next entries are read, so the publish is not a sequence of per-file round trips.
 * Large files stream straight through. Resolves once every file is stored; on failure it
 * still waits for the writes in flight, so `onStored` has seen every blob that was created.
 */
export async function storeFiles(
  blobs: BlobStore,
  files: AsyncIterable<{ path: string; content: Readable | AsyncIterable<Uint8Array> } | AlreadyStored>,
  onStored: (file: StoredFile) => void,
): Promise<void> {
  const unpacking = 'putArchived' in blobs ? (blobs as BlobStore & ArchivedPut) : undefined;
  // Writes out, counted; one waiter for a free place and one for the last to finish. (A set
  // of promises raced per file allocated more than the rest of this loop: every file's
  // garbage counts, because young collections then promote the upload's buffers.)
  let inFlight = 0;
  let wake: (() => void) | undefined;
  let failure: unknown;
  const settled = () => {
    inFlight -= 1;
    const resume = wake;
    wake = undefined;
    resume?.();
  };
  const failed = (err: unknown) => {
    failure ??= err;
    settled();
  };
  const stored = (report: () => void) => {
    try {
      report();
    } catch (err) {
      return failed(err);
    }
    settled();
  };
  const room = async (limit: number) => {
    while (inFlight > limit) await new Promise<void>((resolve) => (wake = resolve));
  };
  try {
    for await (const file of files) {
      if (failure) break;
      if ('stored' in file) {
        onStored({ path: file.path, put: { ...file.stored, created: false } });
        continue;
      }
      const archived = unpacking && (file.content as Partial<ArchivedContent>).archived;
      if (archived) {
        const { path } = file;
        const { corrupt } = archived;
        inFlight += 1;
        unpacking.putArchived(archived).then(
          (put) => stored(() => onStored({ path, put })),
          (err: { code?: string; message?: string }) => failed(err?.code === 'ERR_CONTENT_MISMATCH' ? corrupt(String(err.message)) : err),
        );
        await room(CONCURRENCY - 1);
        continue;
      }
      const head = await readHead(file.content);
      if (head.rest === undefined) {
        // The callback holds the path only, not `file`: its content stream still references
        // the bytes, which should become garbage as soon as the store has copied them.
        const path = file.path;
        inFlight += 1;
        blobs.putBytes(head.bytes).then((put) => stored(() => onStored({ path, put })), failed);
        await room(CONCURRENCY - 1);
      } else {
        const put = await blobs.put(prepend(head.bytes, head.rest));
        onStored({ path: file.path, put });
      }
    }
  } catch (err) {
    failure ??= err;
  }
  await room(0);
  if (failure) throw failure;
}

/** Reads up to SMALL_FILE bytes; `rest` is the unread remainder when the file is larger. */
async function readHead(content: Readable | AsyncIterable<Uint8Array>): Promise<{ bytes: Buffer; rest?: AsyncIterator<Uint8Array> }> {
  const iterator = content[Symbol.asyncIterator]() as AsyncIterator<Uint8Array>;
  const chunks: Buffer[] = [];
  let size = 0;
  for (;;) {
    const next = await iterator.next();
    // One chunk (most small files): that chunk itself, no copy.
    if (next.done) return { bytes: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size) };
    const chunk = Buffer.from(next.value.buffer, next.value.byteOffset, next.value.byteLength);
    chunks.push(chunk);
    size += chunk.length;
    if (size > SMALL_FILE) return { bytes: Buffer.concat(chunks, size), rest: iterator };
  }
}

async function* prepend(head: Buffer, rest: AsyncIterator<Uint8Array>): AsyncGenerator<Uint8Array> {
  yield head;
  for (;;) {
    const next = await rest.next();
    if (next.done) return;
    yield next.value;
  }
}

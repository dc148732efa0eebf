import type { Readable } from 'node:stream';
import type { Archived, BlobStore, PutResult } from '../../domain/ports.ts';

/** Files up to this size are read into memory and stored concurrently; larger ones stream. */
const SMALL_FILE = 256 * 1024;
/** Small files being stored at once: bounds memory to about SMALL_FILE × CONCURRENCY. */
const CONCURRENCY = 16;

export type StoredFile = { readonly path: string; readonly put: PutResult };

/**
 * The content of one file of a publish, by how it arrives:
 * - `stream`: bytes to read (an archive entry, the `index` part, a tool's file);
 * - `archived`: a small zip entry as the archive stores it, handed to the store as is
 *   (`BlobStore.putArchived` inflates and checks it where the store writes);
 * - `stored`: already in the store under its digest (an incremental deploy, spec §10,
 *   uploaded it or the site held it): it joins the manifest without being read.
 */
export type FileContent =
  | { readonly kind: 'stream'; readonly source: Readable | AsyncIterable<Uint8Array> }
  | { readonly kind: 'archived'; readonly archived: Archived }
  | { readonly kind: 'stored'; readonly hash: string; readonly size: number };

/** One file of a publish: its relative path and its content. */
export type IncomingFile = { readonly path: string; readonly content: FileContent };

/**
 * Stores a stream of files in the blob store. Archive entries arrive one after the other,
 * but most site files are small: those are buffered (bounded) and written concurrently
 * while the next entries are read, so the publish is not a sequence of per-file round trips.
 * Large files stream straight through. Resolves once every file is stored; on failure it
 * still waits for the writes in flight, so `onStored` has seen every blob that was created.
 */
export async function storeFiles(blobs: BlobStore, files: AsyncIterable<IncomingFile>, onStored: (file: StoredFile) => void): Promise<void> {
  const writes = new WritesOut(onStored);
  try {
    for await (const { path, content } of files) {
      if (writes.failure) break;
      switch (content.kind) {
        case 'stored':
          onStored({ path, put: { hash: content.hash, size: content.size, created: false } });
          break;
        case 'archived':
          writes.track(path, blobs.putArchived(content.archived));
          await writes.room(CONCURRENCY - 1);
          break;
        case 'stream': {
          const head = await readHead(content.source);
          if (head.rest === undefined) {
            // Tracked by path only, not by the file: its content stream still references
            // the bytes, which should become garbage as soon as the store has copied them.
            writes.track(path, blobs.putBytes(head.bytes));
            await writes.room(CONCURRENCY - 1);
          } else {
            const put = await blobs.put(prepend(head.bytes, head.rest));
            onStored({ path, put });
          }
          break;
        }
        default: {
          const never: never = content;
          throw new Error(`unknown file content ${JSON.stringify(never)}`);
        }
      }
    }
  } catch (err) {
    writes.failure ??= err;
  }
  await writes.room(0);
  if (writes.failure) throw writes.failure;
}

/**
 * The writes out, counted; one waiter for a free place and one for the last to finish. (A
 * set of promises raced per file allocated more than the rest of the loop: every file's
 * garbage counts, because young collections then promote the upload's buffers.) A class,
 * not closures made per publish: the loop above calls these once per file, and optimised
 * code calling one publish's closures would be thrown away (and compiled again) at the next.
 */
class WritesOut {
  private inFlight = 0;
  private wake: (() => void) | undefined;
  failure: unknown;

  constructor(private readonly onStored: (file: StoredFile) => void) {}

  track(path: string, put: Promise<PutResult>): void {
    this.inFlight += 1;
    put.then(
      (result) => this.stored(path, result),
      (err: unknown) => this.failed(err),
    );
  }

  async room(limit: number): Promise<void> {
    while (this.inFlight > limit) await new Promise<void>((resolve) => (this.wake = resolve));
  }

  private stored(path: string, put: PutResult): void {
    try {
      this.onStored({ path, put });
    } catch (err) {
      return this.failed(err);
    }
    this.settled();
  }

  private failed(err: unknown): void {
    this.failure ??= err;
    this.settled();
  }

  private settled(): void {
    this.inFlight -= 1;
    const resume = this.wake;
    this.wake = undefined;
    resume?.();
  }
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

import type { Readable } from 'node:stream';

/** The first bytes of a stream, and the whole stream again (those bytes included). */
export type Peeked = { head: Buffer; body: AsyncGenerator<Buffer, void, undefined> };

const asBuffer = (chunk: unknown): Buffer =>
  Buffer.isBuffer(chunk) ? chunk : typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk as Uint8Array);

/**
 * Reads until at least `count` bytes (or the end) have arrived, without losing them:
 * `body` replays what was read, then continues with the rest of `source`, pulling only
 * as fast as its consumer reads (back-pressure is kept).
 */
export async function peek(source: Readable, count: number): Promise<Peeked> {
  const iterator = source[Symbol.asyncIterator]() as AsyncIterator<unknown>;
  const seen: Buffer[] = [];
  let length = 0;
  let ended = false;
  while (length < count) {
    const next = await iterator.next();
    if (next.done) {
      ended = true;
      break;
    }
    const chunk = asBuffer(next.value);
    seen.push(chunk);
    length += chunk.length;
  }
  return { head: Buffer.concat(seen), body: replay(seen, ended, iterator) };
}

/**
 * `seen`, then the rest of `iterator`. At module level, not a generator function made per
 * call: each function has its own prototype, so each upload's generator would have a new
 * hidden class, and V8 would throw the archive reader's optimised loop over it away each time.
 */
async function* replay(seen: Buffer[], ended: boolean, iterator: AsyncIterator<unknown>): AsyncGenerator<Buffer, void, undefined> {
  try {
    yield* seen.splice(0);
    if (ended) return;
    for (;;) {
      const next = await iterator.next();
      if (next.done) return;
      yield asBuffer(next.value);
    }
  } finally {
    // Stopping early (error, consumer gave up) must release the source.
    if (!ended) await iterator.return?.();
  }
}

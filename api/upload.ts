import busboy from 'busboy';
import type { Context } from 'koa';
import { EventEmitter, on } from 'node:events';
import { PassThrough, type Readable } from 'node:stream';
import { TooLargeError, ValidationError } from '../domain/errors.ts';

/** One part of a multipart body, in the order the client sent them. */
export type Part =
  | { readonly kind: 'field'; readonly name: string; readonly value: string; readonly truncated: boolean }
  | { readonly kind: 'file'; readonly name: string; readonly stream: Readable };

/** A multipart request body being received. */
export type Upload = {
  /** The parts as they arrive; ends when the body is parsed, and throws once the upload has failed. */
  readonly parts: AsyncIterable<Part>;
  /**
   * Ends the upload with `err` (the first failure wins; later ones and calls after `settle`
   * change nothing): stops parsing, cuts off the file part being read, and drains what the
   * client still sends so that it reads our answer. A 408 also closes the connection.
   */
  fail(err: unknown): void;
  /** The first failure, to answer with. */
  readonly failure: unknown;
  /** The file part being read: cut off (without an error) if the upload fails, so no reader waits forever. */
  reading(stream: Readable): void;
  /** The answer is decided: nothing that happens to the request from now on changes it. */
  settle(): void;
};

export type UploadLimits = {
  /** Bytes of the whole body, and of one file part. */
  readonly maxBytes: number;
  readonly maxFieldBytes: number;
  readonly files: number;
  readonly fields: number;
  readonly parts: number;
  /** Slow-client guard (config `uploadPace`; 0 disables). */
  readonly pace: { readonly windowMs: number; readonly minBytesPerSecond: number };
};

/** Stream buffers of the upload: fewer pause/resume rounds than Node's 16 KiB default. */
const PART_BUFFER = 256 * 1024;

/** A 408 the error middleware passes through with its message (http-errors shape). */
function uploadTooSlow(pace: { windowMs: number; minBytesPerSecond: number }): Error {
  return Object.assign(new Error(`the upload was too slow (under ${pace.minBytesPerSecond} bytes/s over ${pace.windowMs / 1000} s); aborted`), { status: 408, expose: true });
}

/**
 * Starts parsing the request body as multipart/form-data. Every way the upload can fail
 * while its parts are being read (too large, too slow, malformed, aborted by the client)
 * goes through `fail`, which ends `parts` with that failure.
 */
export function receiveUpload(ctx: Context, limits: UploadLimits, bytesReceived: (bytes: number) => void): Upload {
  let bb: busboy.Busboy;
  try {
    bb = busboy({
      headers: ctx.req.headers,
      highWaterMark: PART_BUFFER,
      fileHwm: PART_BUFFER,
      limits: { fileSize: limits.maxBytes, files: limits.files, fields: limits.fields, fieldSize: limits.maxFieldBytes, parts: limits.parts },
    });
  } catch {
    throw new ValidationError('malformed multipart body');
  }
  const aborted = new AbortController();
  const events = new EventEmitter();
  let failure: unknown;
  let settled = false;
  let current: Readable | undefined;
  let received = 0;

  const counter = new PassThrough({ highWaterMark: PART_BUFFER });
  counter.on('data', (chunk: Buffer) => {
    received += chunk.length;
    bytesReceived(chunk.length);
    if (received > limits.maxBytes) counter.destroy(new TooLargeError(`the upload is larger than ${limits.maxBytes} bytes`));
  });

  // Slow-client guard: while the body arrives, at least minBytesPerSecond must come in over
  // every window, or the upload ends with 408. A 1 KB/s trickle is never idle, so a plain
  // idle timeout would not catch it. Windows in which we stopped reading (backpressure from
  // the store) do not count against the client.
  const { pace } = limits;
  let windowStart = 0;
  const paceTimer =
    pace.windowMs > 0 && pace.minBytesPerSecond > 0
      ? setInterval(() => {
          const arrived = received - windowStart;
          windowStart = received;
          if (ctx.req.readableFlowing === false || ctx.req.readableEnded) return;
          if (arrived < (pace.minBytesPerSecond * pace.windowMs) / 1000) fail(uploadTooSlow(pace));
        }, pace.windowMs)
      : undefined;

  function fail(err: unknown): void {
    if (settled || failure !== undefined) return;
    failure = err;
    clearInterval(paceTimer);
    aborted.abort(err);
    // A reader of the part would wait forever for bytes that no longer come. Destroyed
    // without an error: its consumer sees a premature close, and nothing emits an unhandled 'error'.
    if (current && !current.readableEnded) current.destroy();
    if ((err as { status?: number }).status === 408) ctx.res.once('finish', () => ctx.req.socket.destroy());
    ctx.req.unpipe(counter);
    counter.unpipe(bb);
    ctx.req.resume(); // drain what the client still sends so it reads our error
  }

  bb.on('field', (name, value, info) => events.emit('part', { kind: 'field', name, value, truncated: info.valueTruncated } satisfies Part));
  bb.on('file', (name, stream) => {
    if (failure !== undefined) return void stream.resume();
    events.emit('part', { kind: 'file', name, stream } satisfies Part);
  });
  bb.on('close', () => {
    clearInterval(paceTimer);
    events.emit('end');
  });
  bb.on('error', (err) => fail(err instanceof Error && 'code' in err ? err : new ValidationError(`malformed multipart body: ${(err as Error).message}`)));
  counter.on('error', fail);
  ctx.req.on('aborted', () => fail(new ValidationError('the upload was aborted')));
  ctx.req.pipe(counter).pipe(bb);

  async function* parts(): AsyncGenerator<Part> {
    try {
      for await (const [part] of on(events, 'part', { signal: aborted.signal, close: ['end'] })) yield part as Part;
    } catch (err) {
      throw failure ?? err;
    }
  }

  return {
    parts: parts(),
    fail,
    get failure() {
      return failure;
    },
    reading(stream) {
      current = stream;
    },
    settle() {
      settled = true;
      clearInterval(paceTimer);
    },
  };
}

/**
 * The items of an iterable not known yet, once `ready` gives it. Defined once here, not as
 * a generator function per request: each such function has its own prototype, so every
 * publish's generator would have a new hidden class, and V8 would throw away (and compile
 * again) the optimised code of the loops reading it: the file store's, the archive reader's.
 */
export async function* whenReady<T>(ready: Promise<AsyncIterable<T>>): AsyncGenerator<T> {
  yield* await ready;
}

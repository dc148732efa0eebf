import busboy from 'busboy';
import type { Context } from 'koa';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Identity } from '../domain/auth.ts';
import type { IncomingFile, PublishOutcome, PublishTarget } from '../app/publish/publish.ts';
import { publishFiles } from '../app/publish/publish.ts';
import { TooLargeError, UnsupportedMediaTypeError, ValidationError } from '../domain/errors.ts';
import { youngGarbageHint } from '../host/gc-hint.ts';
import type { ApiContext } from './context.ts';
import { preparePublish } from './requests.ts';

const MAX_META_BYTES = 64 * 1024;
/** Stream buffers of the upload: fewer pause/resume rounds than Node's 16 KiB default. */
const PART_BUFFER = 256 * 1024;

/** A 408 the error middleware passes through with its message (http-errors shape). */
function uploadTooSlow(pace: { windowMs: number; minBytesPerSecond: number }): Error {
  return Object.assign(new Error(`the upload was too slow (under ${pace.minBytesPerSecond} bytes/s over ${pace.windowMs / 1000} s); aborted`), { status: 408, expose: true });
}

/**
 * Streams a publish request (`meta` + exactly one of `bundle` / `index`) into the
 * publish pipeline. The body is never buffered: the archive is read entry by entry as it
 * arrives; only when `bundle` precedes `meta` is it spooled to a temp file first, because
 * the target (and so the authorization) is not known yet. Limits hold while streaming.
 */
export async function handlePublishRequest(api: ApiContext, ctx: Context, identity: Identity): Promise<PublishOutcome> {
  const type = ctx.get('content-type');
  if (!/^multipart\/form-data/i.test(type)) throw new UnsupportedMediaTypeError('send multipart/form-data with a meta part and a bundle or index file');
  const declared = Number(ctx.get('content-length') || 0);
  const limit = api.config.maxUploadBytes;
  if (declared > limit) throw new TooLargeError(`the upload is larger than ${limit} bytes`);

  let bb: busboy.Busboy;
  try {
    bb = busboy({ headers: ctx.req.headers, highWaterMark: PART_BUFFER, fileHwm: PART_BUFFER, limits: { fileSize: limit, files: 2, fields: 10, fieldSize: MAX_META_BYTES, parts: 12 } });
  } catch {
    throw new ValidationError('malformed multipart body');
  }
  let received = 0;
  const hint = youngGarbageHint();
  const counter = new PassThrough({ highWaterMark: PART_BUFFER });
  counter.on('data', (chunk: Buffer) => {
    received += chunk.length;
    hint(chunk.length);
    if (received > limit) counter.destroy(new TooLargeError(`the upload is larger than ${limit} bytes`));
  });

  // The switch waits until the whole body is parsed, so a bad trailing part still cancels it.
  let bodyDone!: () => void;
  let bodyFailed!: (err: unknown) => void;
  const bodyParsed = new Promise<void>((res, rej) => {
    bodyDone = res;
    bodyFailed = rej;
  });
  bodyParsed.catch(() => undefined);

  // Slow-client guard (config `uploadPace`): while the body arrives, at least
  // minBytesPerSecond must come in over every window, or the upload ends with 408. A 1 KB/s
  // trickle is never idle, so a plain idle timeout would not catch it. Windows in which we
  // stopped reading (backpressure from the store) do not count against the client.
  const pace = api.config.uploadPace;
  return new Promise<PublishOutcome>((resolve, reject) => {
    let windowStart = received;
    const paceTimer =
      pace.windowMs > 0 && pace.minBytesPerSecond > 0
        ? setInterval(() => {
            const arrived = received - windowStart;
            windowStart = received;
            // Paused means we stopped reading (backpressure): not the client's fault.
            if (ctx.req.readableFlowing === false || ctx.req.readableEnded) return;
            if (arrived < (pace.minBytesPerSecond * pace.windowMs) / 1000) fail(uploadTooSlow(pace));
          }, pace.windowMs)
        : undefined;
    void bodyParsed.then(
      () => clearInterval(paceTimer),
      () => clearInterval(paceTimer),
    );
    let target: PublishTarget | undefined;
    let part: Readable | undefined;
    let work: Promise<PublishOutcome> | undefined;
    let spoolDir: string | undefined;
    let spooled: { field: string; path: string; done: Promise<void> } | undefined;
    let settled = false;
    const fail = (err: unknown) => {
      if (settled) return;
      settled = true;
      clearInterval(paceTimer);
      bodyFailed(err);
      // A publish still reading the part would wait forever for bytes that no longer come.
      // Destroyed without an error: its consumer sees a premature close, and nothing emits an unhandled 'error'.
      if (part && !part.readableEnded) part.destroy();
      if ((err as { status?: number }).status === 408) ctx.res.once('finish', () => ctx.req.socket.destroy());
      ctx.req.unpipe(counter);
      counter.unpipe(bb);
      ctx.req.resume(); // drain what the client still sends so it reads our error
      cleanup().finally(() => reject(err));
    };
    const cleanup = async () => {
      if (spoolDir) await rm(spoolDir, { recursive: true, force: true });
    };
    const start = (field: string, stream: Readable) => {
      if (work) {
        stream.resume();
        return fail(new ValidationError('send exactly one of bundle or index'));
      }
      const files: AsyncIterable<IncomingFile> = field === 'index' ? single('index.html', stream) : api.readArchive(stream);
      work = publishFiles(api.deps, identity, target!, files, () => bodyParsed);
      work.catch(fail);
    };

    bb.on('field', (name, value, info) => {
      if (name !== 'meta') return;
      if (info.valueTruncated) return fail(new TooLargeError('meta is too large'));
      if (target) return fail(new ValidationError('meta was sent twice'));
      try {
        target = preparePublish(identity, value);
      } catch (err) {
        return fail(err);
      }
      if (spooled) {
        const s = spooled;
        s.done.then(() => start(s.field, createReadStream(s.path)), fail);
      }
    });
    bb.on('file', (name, stream, info) => {
      if (settled) return stream.resume();
      if (name === 'meta') {
        // `curl -F meta=@meta.json` sends meta as a file part.
        const chunks: Buffer[] = [];
        let size = 0;
        stream.on('data', (c: Buffer) => {
          size += c.length;
          if (size <= MAX_META_BYTES) chunks.push(c);
        });
        stream.on('end', () => bb.emit('field', 'meta', Buffer.concat(chunks).toString('utf8'), { valueTruncated: size > MAX_META_BYTES }));
        return;
      }
      if (name !== 'bundle' && name !== 'index') {
        stream.resume();
        return;
      }
      part = stream;
      stream.on('limit', () => stream.destroy(new TooLargeError(`the upload is larger than ${limit} bytes`)));
      void info;
      if (target) return start(name, stream);
      if (spooled || work) {
        stream.resume();
        return fail(new ValidationError('send exactly one of bundle or index'));
      }
      spooled = { field: name, path: '', done: Promise.resolve() };
      const s = spooled;
      s.done = (async () => {
        spoolDir = await mkdtemp(join(api.deps.tmpDir, 'upload-'));
        s.path = join(spoolDir, 'body');
        await pipeline(stream, createWriteStream(s.path));
      })();
      s.done.catch(fail);
    });
    bb.on('error', (err) => fail(err instanceof Error && 'code' in err ? err : new ValidationError(`malformed multipart body: ${(err as Error).message}`)));
    bb.on('close', () => {
      if (settled) return;
      if (!target) return fail(new ValidationError('the meta part is missing'));
      if (!work && !spooled) return fail(new ValidationError('send exactly one of bundle or index'));
      bodyDone();
      const finish = async () => {
        if (spooled) await spooled.done;
        while (!work) await new Promise((r) => setImmediate(r));
        return work;
      };
      finish().then(
        (outcome) => {
          if (settled) return;
          settled = true;
          clearInterval(paceTimer);
          cleanup().finally(() => resolve(outcome));
        },
        fail,
      );
    });
    counter.on('error', fail);
    ctx.req.on('aborted', () => fail(new ValidationError('the upload was aborted')));
    ctx.req.pipe(counter).pipe(bb);
  });
}

async function* single(path: string, content: Readable): AsyncGenerator<IncomingFile> {
  yield { path, content };
}

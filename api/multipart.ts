import type { Context } from 'koa';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { readPublishMeta, type PublishResult } from '../app/contract/publish.ts';
import { publishSite, type IncomingFile } from '../app/publish/publish-site.ts';
import type { Identity } from '../domain/auth.ts';
import { TooLargeError, UnsupportedMediaTypeError, ValidationError } from '../domain/errors.ts';
import type { ApiContext } from './context.ts';
import { noteTarget, noteWrite } from './write-log.ts';
import { receiveUpload, whenReady, type Part, type Upload } from './upload.ts';

const MAX_META_BYTES = 64 * 1024;

/**
 * `POST /ingest/sites` and `POST /api/sites` (spec §4): streams a publish request (`meta`
 * + exactly one of `bundle` / `index`) into the publish use case. The use case runs first and
 * asks for `meta` once it has authorized what it can without it (a viewer publishes nowhere:
 * 403 before a byte of the body is read); only then is the body read. It checks `publish` on
 * the meta's site as soon as `meta` arrives, before a byte of the files is read; the files
 * follow when their part arrives. The body is never buffered: the archive is read entry by
 * entry as it arrives. Only when `bundle` precedes `meta` is it spooled to a temp file first,
 * because the target (and so the authorization) is not known yet. Limits hold while
 * streaming.
 */
export async function handlePublishRequest(api: ApiContext, ctx: Context, identity: Identity): Promise<PublishResult> {
  let upload: Upload | undefined;
  let parsed: Promise<void> | undefined;
  let spoolDir: string | undefined;
  // The meta part and the files, handed to the publish as they arrive (or refused, so it ends).
  const meta = handOver<string>();
  const ready = handOver<AsyncIterable<IncomingFile>>();
  const files = whenReady(ready.promise);
  const filesOf = (field: string, content: Readable): AsyncIterable<IncomingFile> => (field === 'index' ? single('index.html', content) : api.readArchive(content));

  /** Reads the parts in order; resolves once the body is parsed and holds one meta and one file. */
  const readBody = async (): Promise<void> => {
    const type = ctx.get('content-type');
    if (!/^multipart\/form-data/i.test(type)) throw new UnsupportedMediaTypeError('send multipart/form-data with a meta part and a bundle or index file');
    const declared = Number(ctx.get('content-length') || 0);
    const limit = api.config.maxUploadBytes;
    if (declared > limit) throw new TooLargeError(`the upload is larger than ${limit} bytes`);
    upload = receiveUpload(
      ctx,
      { maxBytes: limit, maxFieldBytes: MAX_META_BYTES, files: 2, fields: 10, parts: 12, pace: api.config.uploadPace },
      api.hooks.bytesReceived,
    );
    let spooled: { field: string; path: string } | undefined;
    let hasMeta = false;
    let file = false;
    for await (const part of upload.parts) {
      if (part.kind === 'file') upload.reading(part.stream);
      const field = part.kind === 'file' && part.name === 'meta' ? await metaFile(part.stream) : part;
      if (field.kind === 'field') {
        if (field.name !== 'meta') continue;
        if (field.truncated) throw new TooLargeError('meta is too large');
        if (hasMeta) throw new ValidationError('meta was sent twice');
        hasMeta = true;
        meta.resolve(field.value);
        if (spooled) ready.resolve(filesOf(spooled.field, createReadStream(spooled.path)));
        continue;
      }
      const { name, stream } = field;
      if (name !== 'bundle' && name !== 'index') {
        stream.resume();
        continue;
      }
      if (file) {
        stream.resume();
        throw new ValidationError('send exactly one of bundle or index');
      }
      file = true;
      stream.on('limit', () => stream.destroy(new TooLargeError(`the upload is larger than ${limit} bytes`)));
      if (hasMeta) {
        ready.resolve(filesOf(name, stream));
        continue;
      }
      // Before meta: the target, and so the authorization, is not known yet.
      spoolDir = await mkdtemp(join(api.deps.tmpDir, 'upload-'));
      spooled = { field: name, path: join(spoolDir, 'body') };
      await pipeline(stream, createWriteStream(spooled.path));
    }
    if (!hasMeta) throw new ValidationError('the meta part is missing');
    if (!file) throw new ValidationError('send exactly one of bundle or index');
  };

  const publishing = publishSite(api.deps, identity, {
    meta: async () => {
      parsed = readBody();
      parsed.catch((err: unknown) => {
        // The first failure wins; a publish still waiting for its meta or files ends (it may hold the publish gate).
        upload?.fail(err);
        meta.reject(upload?.failure ?? err);
        ready.reject(upload?.failure ?? err);
      });
      const parsedMeta = readPublishMeta(await meta.promise);
      // Known before the capability is checked: a refused publish is logged with the site it tried.
      noteTarget(parsedMeta, (site) => noteWrite(ctx, { site }));
      return parsedMeta;
    },
    files,
    // It commits only once the whole body is parsed, so a bad trailing part still cancels it.
    beforeCommit: () => parsed!,
  });
  try {
    const result = await publishing;
    await parsed;
    return result;
  } catch (err) {
    upload?.fail(err);
    ready.reject(upload?.failure ?? err);
    await parsed?.catch(() => undefined);
    throw upload?.failure ?? err;
  } finally {
    upload?.settle();
    if (spoolDir) await rm(spoolDir, { recursive: true, force: true });
  }
}

/** A value handed over later, or a refusal; nobody has to wait for it (a refused one is not an unhandled rejection). */
function handOver<T>(): { promise: Promise<T>; resolve(value: T): void; reject(err: unknown): void } {
  let resolve!: (value: T) => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

/** `curl -F meta=@meta.json` sends meta as a file part: read as the field it stands for. */
async function metaFile(stream: Readable): Promise<Part> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= MAX_META_BYTES) chunks.push(chunk);
  }
  return { kind: 'field', name: 'meta', value: Buffer.concat(chunks).toString('utf8'), truncated: size > MAX_META_BYTES };
}

async function* single(path: string, content: Readable): AsyncGenerator<IncomingFile> {
  yield { path, content: { kind: 'stream', source: content } };
}

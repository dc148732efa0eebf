import type { Context } from 'koa';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Identity } from '../domain/auth.ts';
import type { IncomingFile, PublishOutcome, PublishTarget } from '../app/publish/publish.ts';
import { publishFiles } from '../app/publish/publish.ts';
import { TooLargeError, UnsupportedMediaTypeError, ValidationError } from '../domain/errors.ts';
import type { ApiContext } from './context.ts';
import { preparePublish } from './requests.ts';
import { noteWrite } from './write-log.ts';
import { receiveUpload, type Part } from './upload.ts';

const MAX_META_BYTES = 64 * 1024;

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

  const upload = receiveUpload(
    ctx,
    { maxBytes: limit, maxFieldBytes: MAX_META_BYTES, files: 2, fields: 10, parts: 12, pace: api.config.uploadPace },
    api.hooks.bytesReceived,
  );
  let spoolDir: string | undefined;
  let publishing: Promise<PublishOutcome> | undefined;

  /** Starts the publish on a file part. It commits only once the whole body is parsed, so a bad trailing part still cancels it. */
  const start = (target: PublishTarget, field: string, content: Readable): Promise<PublishOutcome> => {
    const files: AsyncIterable<IncomingFile> = field === 'index' ? single('index.html', content) : api.readArchive(content);
    const publish = publishFiles(api.deps, identity, target, files, () => parsed);
    publish.catch(upload.fail);
    return publish;
  };

  /** Reads the parts in order; resolves once the body is parsed and holds one meta and one file. */
  const readParts = async (): Promise<void> => {
    let target: PublishTarget | undefined;
    let spooled: { field: string; path: string } | undefined;
    for await (const part of upload.parts) {
      if (part.kind === 'file') upload.reading(part.stream);
      const field = part.kind === 'file' && part.name === 'meta' ? await metaFile(part.stream) : part;
      if (field.kind === 'field') {
        if (field.name !== 'meta') continue;
        if (field.truncated) throw new TooLargeError('meta is too large');
        if (target) throw new ValidationError('meta was sent twice');
        target = preparePublish(identity, field.value, (site) => noteWrite(ctx, { site }));
        if (spooled) publishing = start(target, spooled.field, createReadStream(spooled.path));
        continue;
      }
      const { name, stream } = field;
      if (name !== 'bundle' && name !== 'index') {
        stream.resume();
        continue;
      }
      if (publishing || spooled) {
        stream.resume();
        throw new ValidationError('send exactly one of bundle or index');
      }
      stream.on('limit', () => stream.destroy(new TooLargeError(`the upload is larger than ${limit} bytes`)));
      if (target) {
        publishing = start(target, name, stream);
        continue;
      }
      // Before meta: the target, and so the authorization, is not known yet.
      spoolDir = await mkdtemp(join(api.deps.tmpDir, 'upload-'));
      spooled = { field: name, path: join(spoolDir, 'body') };
      await pipeline(stream, createWriteStream(spooled.path));
    }
    if (!target) throw new ValidationError('the meta part is missing');
    if (!publishing) throw new ValidationError('send exactly one of bundle or index');
  };

  const parsed = readParts();
  try {
    await parsed;
    return await publishing!;
  } catch (err) {
    upload.fail(err);
    throw upload.failure;
  } finally {
    upload.settle();
    if (spoolDir) await rm(spoolDir, { recursive: true, force: true });
  }
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
  yield { path, content };
}

import type { Context } from 'koa';
import type { Readable } from 'node:stream';
import { readPreviewMeta, type PreviewMetaInput, type PreviewResult } from '../app/contract/preview.ts';
import { publishPreview } from '../app/previews/publish-preview.ts';
import type { IncomingFile } from '../app/publish/store-files.ts';
import type { Identity } from '../domain/auth.ts';
import { TooLargeError, UnsupportedMediaTypeError, ValidationError } from '../domain/errors.ts';
import type { ApiContext } from './context.ts';
import { receiveUpload, whenReady } from './upload.ts';

const MAX_META_BYTES = 64 * 1024;

/**
 * `PUT /ingest/sites/{path}/previews/{name}` (spec §14): the publish multipart (`bundle` or
 * `index`, `meta` optional), streamed into the preview publish. The target is in the URL, so
 * the use case authorizes before the body is read and the files stream as they arrive
 * whatever the order of the parts; `meta` is read just before the switch, which waits until
 * the whole body is parsed (a bad trailing part still cancels the publish).
 */
export async function handlePreviewRequest(api: ApiContext, ctx: Context, identity: Identity, site: string, name: string): Promise<PreviewResult> {
  let deliver!: (files: AsyncIterable<IncomingFile>) => void;
  let refuse!: (err: unknown) => void;
  const ready = new Promise<AsyncIterable<IncomingFile>>((resolve, reject) => {
    deliver = resolve;
    refuse = reject;
  });
  ready.catch(() => undefined); // the publish reports it
  const files = whenReady(ready);
  let meta: PreviewMetaInput | undefined;
  let parsed: Promise<void> = Promise.resolve();
  // Authorized (and the name checked) before the body is touched: a refusal reads nothing.
  const publishing = publishPreview(api.deps, identity, { site, name, meta: () => meta, files, beforeCommit: () => parsed });

  // A body this route cannot take is refused as the publish's files, so a caller without the
  // capability hears 403 first (spec §2), whatever it sent.
  const limit = api.config.maxUploadBytes;
  const unfit = !/^multipart\/form-data/i.test(ctx.get('content-type'))
    ? new UnsupportedMediaTypeError('send multipart/form-data with a bundle or index file (and optionally a meta part)')
    : Number(ctx.get('content-length') || 0) > limit
      ? new TooLargeError(`the upload is larger than ${limit} bytes`)
      : undefined;
  if (unfit) {
    refuse(unfit);
    return await publishing;
  }

  const upload = receiveUpload(
    ctx,
    { maxBytes: limit, maxFieldBytes: MAX_META_BYTES, files: 2, fields: 10, parts: 12, pace: api.config.uploadPace },
    api.hooks.bytesReceived,
  );
  publishing.catch(upload.fail);

  const readParts = async (): Promise<void> => {
    let file = false;
    let sawMeta = false;
    for await (const part of upload.parts) {
      if (part.kind === 'file') upload.reading(part.stream);
      if (part.name === 'meta') {
        if (sawMeta) throw new ValidationError('meta was sent twice');
        sawMeta = true;
        const value = part.kind === 'field' ? part : await metaFile(part.stream);
        if (value.truncated) throw new TooLargeError('meta is too large');
        meta = readPreviewMeta(value.value);
        continue;
      }
      if (part.kind === 'field') continue;
      if (part.name !== 'bundle' && part.name !== 'index') {
        part.stream.resume();
        continue;
      }
      if (file) {
        part.stream.resume();
        throw new ValidationError('send exactly one of bundle or index');
      }
      file = true;
      const stream = part.stream;
      stream.on('limit', () => stream.destroy(new TooLargeError(`the upload is larger than ${limit} bytes`)));
      deliver(part.name === 'index' ? single('index.html', stream) : api.readArchive(stream));
    }
    if (!file) throw new ValidationError('send exactly one of bundle or index');
  };

  parsed = readParts();
  try {
    await parsed;
    return await publishing;
  } catch (err) {
    upload.fail(err);
    // A publish still waiting for its files must end (it holds the publish gate).
    refuse(upload.failure);
    await publishing.catch(() => undefined);
    throw upload.failure;
  } finally {
    upload.settle();
  }
}

/** `curl -F meta=@meta.json` sends meta as a file part: read as the field it stands for. */
async function metaFile(stream: Readable): Promise<{ value: string; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= MAX_META_BYTES) chunks.push(chunk);
  }
  return { value: Buffer.concat(chunks).toString('utf8'), truncated: size > MAX_META_BYTES };
}

async function* single(path: string, content: Readable): AsyncGenerator<IncomingFile> {
  yield { path, content: { kind: 'stream', source: content } };
}

import { Readable } from 'node:stream';
import type { Limits } from '../../../app/deps.ts';
import type { IncomingFile } from '../../../app/publish/publish-site.ts';
import { TooLargeError, ValidationError } from '../../../domain/errors.ts';
import { createPathRegistry } from '../../../domain/file-paths.ts';

/** One file of a `publish_site` call, as the tool receives it. */
export type ToolFile = { readonly path: string; readonly content: string; readonly encoding?: 'utf8' | 'base64' };

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Decodes one file's content; base64 must be canonical (no stray characters silently dropped). */
function decode(file: ToolFile): Buffer {
  if (file.encoding !== 'base64') return Buffer.from(file.content, 'utf8');
  const text = file.content.replace(/\s+/g, '');
  if (text.length % 4 !== 0 || !BASE64.test(text)) {
    throw new ValidationError(`file ${JSON.stringify(file.path)} is not valid base64`);
  }
  return Buffer.from(text, 'base64');
}

/**
 * The files of a publish as `publishSite` takes them. When the use case first reads them
 * (after it has authorized), all of them are validated and decoded before the first is
 * handed over, so nothing is stored from a bad list: the same path rules as archives (no
 * `..`, absolute paths, backslashes, NUL, duplicates) and the same limits, counted on decoded
 * bytes: upload and extracted bytes, and entry count.
 */
export async function* toolFiles(input: { html?: string; files?: readonly ToolFile[] }, limits: Limits): AsyncGenerator<IncomingFile> {
  const hasHtml = input.html !== undefined;
  const hasFiles = input.files !== undefined;
  if (hasHtml === hasFiles) throw new ValidationError('give exactly one of "html" (one page) or "files"');
  const list: readonly ToolFile[] = hasHtml ? [{ path: 'index.html', content: input.html!, encoding: 'utf8' }] : input.files!;
  if (list.length === 0) throw new ValidationError('"files" is empty: a site needs at least index.html');
  if (list.length > limits.maxExtractEntries) {
    throw new TooLargeError(`${list.length} files are more than the limit of ${limits.maxExtractEntries} entries`);
  }
  const registry = createPathRegistry();
  const decoded: { path: string; bytes: Buffer }[] = [];
  let total = 0;
  for (const file of list) {
    const path = registry.addFile(file.path);
    // Cheap bound before decoding: base64 yields at most 3/4 of its length.
    const estimate = file.encoding === 'base64' ? Math.floor((file.content.length * 3) / 4) : Buffer.byteLength(file.content, 'utf8');
    if (total + estimate > limits.maxUploadBytes + 3) tooLarge(limits, total + estimate);
    const bytes = decode(file);
    total += bytes.length;
    if (total > limits.maxUploadBytes || total > limits.maxExtractBytes) tooLarge(limits, total);
    decoded.push({ path, bytes });
  }
  for (const f of decoded) yield { path: f.path, content: { kind: 'stream', source: Readable.from([f.bytes]) } };
}

function tooLarge(limits: Limits, bytes: number): never {
  const limit = Math.min(limits.maxUploadBytes, limits.maxExtractBytes);
  throw new TooLargeError(`the files add up to more than ${limit} bytes (at least ${bytes}), over the upload limit`);
}

import type { Context } from 'koa';
import { TooLargeError, UnsupportedMediaTypeError, ValidationError } from '../domain/errors.ts';

const MAX_JSON = 1024 * 1024;

/**
 * Reads a small JSON body. An empty body is `undefined` (rollback without a body means
 * "the most recently archived revision"); anything that is not JSON is refused.
 */
export async function readJson(ctx: Context): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > MAX_JSON) throw new TooLargeError('the JSON body is too large');
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return undefined;
  const type = ctx.get('content-type');
  if (type && !/^application\/(?:[\w.+-]*\+)?json\b/i.test(type)) throw new UnsupportedMediaTypeError('send application/json');
  try {
    return JSON.parse(text);
  } catch {
    throw new ValidationError('the body is not valid JSON');
  }
}

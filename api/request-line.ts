import type { Context, Next } from 'koa';
import { ValidationError } from '../domain/errors.ts';

/** Longer than any real path of the API or the portal (a site path is at most 3 × 63 characters). */
export const MAX_PATH_LENGTH = 2048;

/**
 * A path that cannot be decoded (`/%E0%A4%A.js`) or is absurdly long is the client's
 * mistake: answer 400 before any route tries to decode it and fails with a 500.
 */
export async function requestLineCheck(ctx: Context, next: Next): Promise<void> {
  const path = ctx.path;
  if (path.length > MAX_PATH_LENGTH) throw new ValidationError(`the request path is longer than ${MAX_PATH_LENGTH} characters`);
  try {
    decodeURIComponent(path);
  } catch {
    throw new ValidationError('the request path has a malformed percent-escape');
  }
  await next();
}

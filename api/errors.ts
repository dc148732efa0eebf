import type { Context, Next } from 'koa';
import { asDomainError, DomainError, type ErrorCode } from '../domain/errors.ts';

/** The status of each domain error code (spec §2). */
export const STATUS: Readonly<Record<ErrorCode, number>> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  unsupported_media_type: 415,
  insufficient_storage: 507,
};

/** The one place where typed errors become `{error, code}` JSON with the spec's status. */
export async function errorMiddleware(ctx: Context, next: Next): Promise<void> {
  try {
    await next();
    if (ctx.status === 404 && ctx.body === undefined) {
      ctx.status = 404;
      ctx.body = { error: 'no such endpoint', code: 'not_found' };
    }
  } catch (thrown) {
    const err = asDomainError(thrown);
    if (err instanceof DomainError) {
      ctx.status = STATUS[err.code];
      ctx.body = { error: err.message, code: err.code };
      return;
    }
    const e = err as { status?: number; expose?: boolean; message?: string };
    if (typeof e.status === 'number' && e.status >= 400 && e.status < 500) {
      ctx.status = e.status;
      ctx.body = { error: e.expose && e.message ? e.message : 'bad request', code: e.status === 413 ? 'too_large' : e.status === 415 ? 'unsupported_media_type' : 'invalid' };
      return;
    }
    ctx.app.emit('error', err, ctx);
    ctx.status = 500;
    ctx.body = { error: 'internal error', code: 'internal' };
  }
}

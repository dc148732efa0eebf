import type { Context } from 'koa';
import type { ListingAnswer, ListingCoding } from '../app/queries/list-sites.ts';

/**
 * Sends a listing (`GET /api/sites`): gzip when the client accepts it (the form the
 * listing is kept in), else brotli, else plain; a strong `ETag` per answer and encoding
 * (RFC 9110 §8.8.3: each content coding is a representation of its own), and 304 to an
 * `If-None-Match` that names it (the body is not sent, nor made in another coding).
 * `no-cache` lets a browser keep the answer and ask again each time; `private`: it is this
 * reader's answer.
 */
export async function sendListing(ctx: Context, answer: ListingAnswer): Promise<void> {
  const coding: ListingCoding = ctx.acceptsEncodings('gzip') ? 'gzip' : ctx.acceptsEncodings('br') ? 'br' : 'identity';
  const etag = `"${await answer.tag()}${coding === 'identity' ? '' : `-${coding}`}"`;
  ctx.vary('Accept-Encoding');
  ctx.set('ETag', etag);
  ctx.set('Cache-Control', 'private, no-cache');
  if (matches(ctx.get('If-None-Match'), etag)) {
    ctx.status = 304;
    return;
  }
  const body = await answer.body(coding);
  ctx.type = 'application/json; charset=utf-8';
  if (coding !== 'identity') ctx.set('Content-Encoding', coding);
  ctx.body = body;
}

/** `If-None-Match` compares weakly (RFC 9110 §13.1.2): `W/` is ignored; `*` matches any. */
function matches(header: string, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((t) => {
    const tag = t.trim();
    return tag === '*' || tag.replace(/^W\//, '') === etag;
  });
}

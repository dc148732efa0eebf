import type { Context } from 'koa';
import type { ApiContext } from '../../api/context.ts';

/** The connector's URLs, all derived from the apex origin. */
export function urls(api: Pick<ApiContext, 'apexOrigin'>) {
  const origin = api.apexOrigin();
  return {
    origin,
    /** The RFC 8707 resource identifier of the MCP endpoint: every token is bound to it. */
    resource: `${origin}/mcp`,
    resourceMetadata: `${origin}/.well-known/oauth-protected-resource/mcp`,
    authorize: `${origin}/mcp/oauth/authorize`,
    token: `${origin}/mcp/oauth/token`,
    register: `${origin}/mcp/oauth/register`,
  };
}

/** Resource indicators compare without a fragment and one trailing slash (as the SDK does). */
export function sameResource(a: string, b: string): boolean {
  const norm = (s: string) => s.replace(/#.*$/, '').replace(/\/$/, '');
  return norm(a) === norm(b);
}

export class BodyTooLarge extends Error {}

/** Reads the raw request body up to `limit` bytes. */
export async function readBody(ctx: Context, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new BodyTooLarge(`the request body is larger than ${limit} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** An OAuth error answer (RFC 6749 §5.2 / RFC 7591 §3.2.2): JSON, never cached. */
export function oauthError(ctx: Context, status: number, error: string, description: string): void {
  ctx.status = status;
  ctx.set('Cache-Control', 'no-store');
  ctx.body = { error, error_description: description };
}

/** Media type of the request without parameters, lower-cased. */
export function mediaType(ctx: Context): string {
  return (ctx.get('content-type').split(';')[0] ?? '').trim().toLowerCase();
}

/**
 * Does an `Origin` header name an apex host (the base domain or an alias), with any scheme
 * and port? Behind a proxy the browser's origin is the proxy's, not the one we listen on.
 * `null` and anything that is not an http(s) origin never match.
 */
export function isApexOrigin(api: Pick<ApiContext, 'config'>, origin: string): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  const host = url.hostname.toLowerCase();
  return [api.config.baseDomain, ...api.config.aliasDomains].some((d) => d.toLowerCase() === host);
}

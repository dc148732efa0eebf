import type { Context, Next } from 'koa';

/**
 * What every byte a publisher supplied gets when served on the apex (favicons, revision
 * files, revision archives): no script, no plugin, no frame, a sandboxed document even
 * if a browser is tricked into rendering it (spec §2).
 */
export const INERT_CSP = "default-src 'none'; style-src 'unsafe-inline'; sandbox";

/**
 * The portal's policy: its own script and styles only; images from anywhere (a site's
 * `preview` may live elsewhere); frames only from site hosts (live thumbnails), never
 * from the apex; never framed itself.
 */
export function portalCsp(apexes: readonly string[]): string {
  const siteHosts = apexes.map((apex) => `*.${apex}:*`).join(' ');
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data: https: http:",
    "connect-src 'self'",
    "font-src 'self'",
    "manifest-src 'self'",
    `frame-src ${siteHosts}`,
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * Defaults for every apex response, set before the route runs so that streamed answers
 * (MCP, downloads) carry them too: inert unless a route that serves the service's own
 * HTML opts into a policy of its own. `same-origin` keeps the `Origin` header on the
 * service's own form posts (with `no-referrer` Chromium sends `Origin: null`).
 */
export async function apexSecurityHeaders(ctx: Context, next: Next): Promise<void> {
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Referrer-Policy', 'same-origin');
  ctx.set('Content-Security-Policy', `${INERT_CSP}; frame-ancestors 'none'`);
  await next();
}

/** Marks a response whose bytes a publisher supplied (spec §2): never sniffed, never active. */
export function inertPublisherBytes(ctx: Context): void {
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Content-Security-Policy', INERT_CSP);
}

import type { Context, Next } from 'koa';
import { ForbiddenError } from '../domain/errors.ts';
import { authenticationOf } from './auth.ts';
import type { ApiContext } from './context.ts';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Is this request from a page of the apex itself? Published sites are same-site with the
 * apex, so the sign-in proxy's cookie travels with anything they send; only Fetch Metadata
 * and `Origin` tell the portal's own requests apart. A header that is absent says nothing
 * (curl, scripts, old browsers without Fetch Metadata still send `Origin` on a POST).
 */
export function fromApex(ctx: Context, apexes: readonly string[]): boolean {
  const site = ctx.get('sec-fetch-site');
  if (site && site !== 'same-origin' && site !== 'none') return false;
  const origin = ctx.get('origin');
  if (!origin) return true;
  let host: string;
  try {
    const url = new URL(origin);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
    host = url.hostname.toLowerCase().replace(/^\[|\]$/g, '');
  } catch {
    return false; // `Origin: null` (sandboxed frames, opaque origins) is never the apex
  }
  // Any port and scheme: behind a proxy the browser's origin is not the one we listen on.
  return apexes.includes(host);
}

/**
 * Refuses every state-changing request authenticated by the forward-auth identity that
 * did not come from the apex (spec §2). One middleware in front of every apex route, so
 * a route added later is covered without remembering to. A bearer key is never attached
 * by a browser on its own, so key requests pass untouched. Reads the request's
 * authentication (`authentication` in api/auth.ts resolves it first).
 */
export function crossOriginGuard(api: ApiContext) {
  const apexes = api.apexHosts;
  return async (ctx: Context, next: Next): Promise<void> => {
    if (SAFE_METHODS.has(ctx.method)) return next();
    const auth = await authenticationOf(api, ctx);
    if (auth.bearer) return next();
    if (auth.user !== undefined && !fromApex(ctx, apexes)) {
      throw new ForbiddenError('cross-origin request refused: state-changing requests signed in through the proxy must come from the portal itself');
    }
    return next();
  };
}

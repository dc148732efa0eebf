import { isIP } from 'node:net';
import type { Context } from 'koa';
import type { ApiContext } from './context.ts';
import { inCidrs } from './ip.ts';

/** An address as a proxy may write it in X-Forwarded-For: bare, `[v6]:port` or `v4:port`. */
function forwardedAddress(entry: string): string | undefined {
  if (isIP(entry)) return entry;
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(entry);
  if (bracketed && isIP(bracketed[1]!) === 6) return bracketed[1];
  const withPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(entry);
  if (withPort && isIP(withPort[1]!) === 4) return withPort[1];
  return undefined;
}

/**
 * The address a request comes from: the TCP peer, or, when the peer is one of the trusted
 * proxies (SITES_TRUSTED_PROXIES), the right-most X-Forwarded-For entry: the one that
 * proxy added itself. Entries further left were written by the client and prove nothing.
 */
export function peerAddress(api: Pick<ApiContext, 'config'>, ctx: Context): string {
  const peer = ctx.req.socket.remoteAddress ?? 'unknown';
  if (!inCidrs(peer, api.config.trustedProxies)) return peer;
  const last = ctx.get('x-forwarded-for').split(',').map((s) => s.trim()).filter(Boolean).pop();
  return (last && forwardedAddress(last)) ?? peer;
}

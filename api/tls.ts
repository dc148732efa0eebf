import type { Middleware } from 'koa';
import { askCertificate, type CertificateNames } from '../app/tls/ask.ts';
import type { ApiContext } from './context.ts';
import { inCidrs } from './ip.ts';

/**
 * `GET /tls/ask?domain=<host>` (spec §15), the question Caddy's `on_demand_tls { ask }`
 * asks before it obtains a certificate: 200 when the service answers that name, 404 when
 * not. Only the TLS proxy asks, so only peers in SITES_TRUSTED_PROXIES get an answer;
 * anyone else gets the 404 of an endpoint that does not exist (the list of live sites is
 * not for them to probe, even though their hosts are public). A request that a proxy relays
 * for someone else (it carries any header a proxy or CDN adds for its client: see RELAYED)
 * is not the proxy asking, and is answered like an outsider's.
 */
const RELAYED = ['x-forwarded-for', 'forwarded', 'via', 'x-real-ip', 'true-client-ip', 'cf-connecting-ip', 'x-forwarded-host', 'x-forwarded-proto'];

export function tlsAskRoute(api: Pick<ApiContext, 'deps' | 'config'>, names: CertificateNames): Middleware {
  return async (ctx) => {
    const relayed = RELAYED.some((name) => ctx.get(name) !== '');
    if (relayed || !inCidrs(ctx.req.socket.remoteAddress, api.config.trustedProxies)) {
      ctx.status = 404;
      ctx.body = { error: 'no such endpoint', code: 'not_found' };
      return;
    }
    const domain = ctx.query.domain;
    const allowed = typeof domain === 'string' && (await askCertificate(api.deps, names, domain));
    ctx.set('Cache-Control', 'no-store');
    ctx.status = allowed ? 200 : 404;
    ctx.body = allowed ? { ok: true } : { error: `no certificate for ${typeof domain === 'string' ? JSON.stringify(domain.slice(0, 300)) : 'a request without one domain parameter'}: not a host this service answers`, code: 'not_found' };
  };
}

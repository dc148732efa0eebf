import type { Middleware } from 'koa';
import { answerCertificateAsk, type CertificateNames } from '../app/tls/ask.ts';
import { NotFoundError } from '../domain/errors.ts';
import type { ApiContext } from './context.ts';
import { inCidrs } from './ip.ts';

/**
 * `GET /tls/ask?domain=<host>` (spec §15), the question Caddy's `on_demand_tls { ask }`
 * asks before it obtains a certificate: 200 when the service answers that name, 404 when
 * not. Only the TLS proxy asks, so only peers in SITES_TRUSTED_PROXIES get an answer;
 * anyone else gets the 404 of an endpoint that does not exist (the list of live sites is
 * not for them to probe, even though their hosts are public). A request that a proxy relays
 * for someone else (it carries any header a proxy or CDN adds for its client: see RELAYED)
 * is not the proxy asking, and is answered like an outsider's. This route only says who asks
 * (the peer, the headers); the use case (app/tls/ask.ts) decides whether they may.
 */
const RELAYED = ['x-forwarded-for', 'forwarded', 'via', 'x-real-ip', 'true-client-ip', 'cf-connecting-ip', 'x-forwarded-host', 'x-forwarded-proto'];

export function tlsAskRoute(api: Pick<ApiContext, 'deps' | 'config'>, names: CertificateNames): Middleware {
  return async (ctx) => {
    const asker = { trustedPeer: inCidrs(ctx.req.socket.remoteAddress, api.config.trustedProxies), relayed: RELAYED.some((name) => ctx.get(name) !== '') };
    const domain = ctx.query.domain;
    let allowed: boolean;
    try {
      allowed = await answerCertificateAsk(api.deps, asker, names, domain);
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
      ctx.status = 404;
      ctx.body = { error: err.message, code: 'not_found' };
      return;
    }
    ctx.set('Cache-Control', 'no-store');
    ctx.status = allowed ? 200 : 404;
    ctx.body = allowed ? { ok: true } : { error: `no certificate for ${typeof domain === 'string' ? JSON.stringify(domain.slice(0, 300)) : 'a request without one domain parameter'}: not a host this service answers`, code: 'not_found' };
  };
}

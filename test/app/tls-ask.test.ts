/**
 * app/tls/ask.ts, the use case behind `GET /tls/ask` (spec §15): only the TLS proxy itself is
 * answered. Anyone else, and a request a proxy relays for a client of its own, is refused as
 * an endpoint that does not exist, before the read model is asked anything.
 */
import { describe, expect, it } from 'vitest';
import { answerCertificateAsk, type CertificateNames } from '../../app/tls/ask.ts';
import { NotFoundError } from '../../domain/errors.ts';
import type { SiteDoc } from '../../projections/documents.ts';

const names: CertificateNames = { apexes: ['sites.test'], direct: ['127.0.0.1'], baseDomain: 'sites.test', controlDomain: 'sites.test' };

function readModel() {
  const lookups: string[] = [];
  const getSite = async (path: string) => (lookups.push(path), path === 'docs/app' ? ({ path, status: 'live' } as SiteDoc) : undefined);
  const siteByDomain = async (name: string) => (lookups.push(name), undefined);
  return { lookups, deps: { queries: { getSite, siteByDomain } } };
}

describe('answerCertificateAsk', () => {
  it('answers the proxy itself: a live site yes, an unknown one no, a missing or repeated domain no', async () => {
    const { deps } = readModel();
    const proxy = { trustedPeer: true, relayed: false };
    expect(await answerCertificateAsk(deps, proxy, names, 'app.docs.sites.test')).toBe(true);
    expect(await answerCertificateAsk(deps, proxy, names, 'web.docs.sites.test')).toBe(false);
    expect(await answerCertificateAsk(deps, proxy, names, undefined)).toBe(false);
    expect(await answerCertificateAsk(deps, proxy, names, ['app.docs.sites.test', 'x'])).toBe(false);
  });

  it('an outsider, or the proxy relaying someone else, gets "no such endpoint" and the read model is never asked', async () => {
    const { deps, lookups } = readModel();
    for (const asker of [
      { trustedPeer: false, relayed: false },
      { trustedPeer: true, relayed: true },
      { trustedPeer: false, relayed: true },
    ]) {
      const asked = answerCertificateAsk(deps, asker, names, 'app.docs.sites.test');
      await expect(asked, JSON.stringify(asker)).rejects.toBeInstanceOf(NotFoundError);
      await expect(asked).rejects.toThrow('no such endpoint');
    }
    expect(lookups).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { askCertificate, certificateAllowed, type CertificateNames } from '../../app/tls/ask.ts';
import { classifyHost, isIpLiteral } from '../../domain/hosts.ts';
import type { SiteDoc } from '../../projections/documents.ts';

const names: CertificateNames = {
  apexes: ['sites.test', 'alias.test', 'control.test'],
  direct: ['127.0.0.1', 'localhost'],
  baseDomain: 'sites.test',
  controlDomain: 'control.test',
};

/** A read model holding these sites (path → status, or a document's fields) and custom domains (domain → path), recording every lookup. */
function readModel(sites: Record<string, SiteDoc['status'] | Partial<SiteDoc>>, domains: Record<string, string> = {}) {
  const lookups: string[] = [];
  const getSite = async (path: string) => {
    const found = sites[path];
    if (!found) return undefined;
    const fields = typeof found === 'string' ? { status: found } : found;
    return { path, live: { id: 'r', manifest: 'm', files: 1, size: 1 }, archived: [], ...fields } as SiteDoc;
  };
  return {
    lookups,
    readModel: {
      getSite: async (path: string) => {
        lookups.push(path);
        return getSite(path);
      },
      siteByDomain: async (domain: string) => {
        lookups.push(`domain:${domain}`);
        return domains[domain] === undefined ? undefined : getSite(domains[domain]!);
      },
    },
  };
}

describe('the TLS ask decision (spec §15)', () => {
  it('one answer per kind of host: apex yes, listen address no, site when live, external when a live site\'s custom domain, unknown no', async () => {
    const facts = {
      liveSite: async (path: string) => path === 'docs/app',
      liveDomain: async (name: string) => name === 'docs.acme.com',
      livePreview: async () => false,
      retainedRevision: async () => false,
    };
    expect(certificateAllowed({ kind: 'apex', name: 'sites.test', direct: false }, names, facts)).toBe(true);
    expect(certificateAllowed({ kind: 'apex', name: '127.0.0.1', direct: true }, names, facts)).toBe(false);
    expect(await certificateAllowed({ kind: 'site', address: { group: 'docs', slug: 'app' }, apex: 'sites.test' }, names, facts)).toBe(true);
    expect(await certificateAllowed({ kind: 'site', address: { group: 'docs', slug: 'web' }, apex: 'sites.test' }, names, facts)).toBe(false);
    expect(await certificateAllowed({ kind: 'site', address: { group: 'docs', slug: 'app' }, apex: 'control.test' }, names, facts)).toBe(false);
    expect(await certificateAllowed({ kind: 'external', name: 'docs.acme.com' }, names, facts)).toBe(true);
    expect(await certificateAllowed({ kind: 'external', name: 'www.acme.com' }, names, facts)).toBe(false);
    expect(certificateAllowed({ kind: 'unknown' }, names, facts)).toBe(false);
  });

  it('a preview while it exists and has not expired beside a live site; a permalink while its revision is retained (spec §14)', async () => {
    const now = new Date('2026-03-01T00:00:00Z');
    const preview = (name: string, expiresAt: string) => ({ name, expiresAt, revision: { id: 'p', manifest: 'mp', files: 1, size: 1 }, meta: {}, createdAt: '', updatedAt: '' });
    const live = { number: 3, id: 'r3', manifest: 'm3', files: 1, size: 1 };
    const archived = [{ number: 2, id: 'r2', manifest: 'm2', files: 1, size: 1 }];
    const { readModel: rm } = readModel({
      'docs/app': { status: 'live', live, archived, previews: [preview('pr-1', '2026-03-02T00:00:00.000Z'), preview('old', '2026-02-28T00:00:00.000Z')] },
      'docs/off': { status: 'quarantined', live, archived, previews: [preview('pr-1', '2026-03-02T00:00:00.000Z')] },
    });
    const answer = (d: string) => askCertificate({ queries: rm, now: () => now }, names, d);
    expect(await answer('pr-1--app.docs.sites.test')).toBe(true);
    expect(await answer('pr-1--app.docs.alias.test')).toBe(true);
    expect(await answer('old--app.docs.sites.test')).toBe(false); // expired, not yet removed by the job
    expect(await answer('pr-2--app.docs.sites.test')).toBe(false);
    expect(await answer('pr-1--off.docs.sites.test')).toBe(false); // its site is in the trash
    expect(await answer('v3--app.docs.sites.test')).toBe(true);
    expect(await answer('v2--app.docs.sites.test')).toBe(true);
    expect(await answer('v1--app.docs.sites.test')).toBe(false); // dropped
    expect(await answer('v4--app.docs.sites.test')).toBe(false); // not yet
    expect(await answer('v3--off.docs.sites.test')).toBe(false);
    expect(await answer('pr-1--app.docs.control.test')).toBe(false); // nothing lives under a control domain of its own
  });

  it('a control domain that is the base domain has its sites like the base', async () => {
    const same = { ...names, apexes: ['sites.test'], controlDomain: 'sites.test' };
    const { readModel: rm } = readModel({ demo: 'live' });
    expect(await askCertificate({ queries: rm }, same, 'sites.test')).toBe(true);
    expect(await askCertificate({ queries: rm }, same, 'demo.sites.test')).toBe(true);
  });

  it('only a live site: quarantined, purged (no document) and absent ones are refused', async () => {
    const { readModel: rm } = readModel({ 'docs/app': 'live', 'docs/old': 'quarantined', 'grp/sub/a': 'live' });
    const answer = (d: string) => askCertificate({ queries: rm }, names, d);
    expect(await answer('app.docs.sites.test')).toBe(true);
    expect(await answer('a.sub.grp.alias.test')).toBe(true);
    expect(await answer('old.docs.sites.test')).toBe(false);
    expect(await answer('gone.docs.sites.test')).toBe(false);
  });

  it('names that cannot be ours cost no read-model lookup', async () => {
    const { readModel: rm, lookups } = readModel({ demo: 'live' });
    const refused = ['', 'a.b.c.d.sites.test', 'demo..sites.test', 'demo.sites.test.', 'demo.sites.test:443', '*.sites.test',
      '10.0.0.1', '[::1]', 'localhost', '127.0.0.1', 'x'.repeat(300), 'demo.control.test', 'de_mo.sites.test'];
    for (const d of refused) expect(await askCertificate({ queries: rm }, names, d), d).toBe(false);
    expect(lookups).toEqual([]);
    expect(await askCertificate({ queries: rm }, names, 'demo.sites.test')).toBe(true);
    expect(lookups).toEqual(['demo']);
  });

  it('a name under no apex costs one lookup, by custom domain, and is allowed only for a live site\'s (spec §15)', async () => {
    const { readModel: rm, lookups } = readModel({ 'docs/app': 'live', 'docs/old': 'quarantined' }, { 'docs.acme.com': 'docs/app', 'old.acme.com': 'docs/old' });
    const answer = (d: string) => askCertificate({ queries: rm }, names, d);
    expect(await answer('docs.acme.com')).toBe(true);
    expect(await answer('DOCS.ACME.COM')).toBe(true);
    expect(await answer('old.acme.com')).toBe(false);
    expect(await answer('example.com')).toBe(false);
    expect(lookups).toEqual(['domain:docs.acme.com', 'domain:docs.acme.com', 'domain:old.acme.com', 'domain:example.com']);
  });
});

describe('classifyHost for certificates', () => {
  it('says which apex matched, and whether it is the listen address', () => {
    expect(classifyHost('Alias.Test:8443', names)).toEqual({ kind: 'apex', name: 'alias.test', direct: false });
    expect(classifyHost('localhost', names)).toEqual({ kind: 'apex', name: 'localhost', direct: true });
    expect(classifyHost('a.sub.grp.control.test', names)).toEqual({ kind: 'site', address: { group: 'grp/sub', slug: 'a' }, apex: 'control.test' });
  });

  it('every name a URL parser reads as IPv4 is an IP literal, never a site', () => {
    for (const host of ['10.0.0.1', '127.1', '0x7f.1', '1.2.3.4.5', 'a.sites.test.9', '[::1]']) expect(isIpLiteral(host), host).toBe(true);
    for (const host of ['sites.test', '1.sites.test', 'x1', 'v7--app.docs.sites.test']) expect(isIpLiteral(host), host).toBe(false);
    expect(classifyHost('127.1', { apexes: ['1'] })).toEqual({ kind: 'unknown' });
  });
});

/**
 * Custom domains in the domain model (spec §15): the claim decider of the domain-<name> stream,
 * the site's own DomainAttached / DomainDetached, and the name rules.
 */
import { describe, expect, it } from 'vitest';
import { domainClaimDecider, type DomainClaimEvent } from '../../domain/custom-domain/claim.ts';
import { parseCustomDomain } from '../../domain/custom-domain/name.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../domain/errors.ts';
import { siteDecider } from '../../domain/site/decide.ts';
import type { SiteEvent } from '../../domain/site/events.ts';
import { deciderSpec } from '../support/decider-spec.ts';
import { meta, published, quarantined, revision } from '../contracts/readmodel-events.ts';

const claims = deciderSpec(domainClaimDecider);
const sites = deciderSpec(siteDecider);
const D = 'docs.acme.com';
const claimed = (site: string, siteId: number, siteRevision: number): DomainClaimEvent => ({ type: 'DomainClaimed', data: { domain: D, site, siteId, siteRevision } });
const released = (site: string, siteId: number): DomainClaimEvent => ({ type: 'DomainReleased', data: { domain: D, site, siteId } });
const claim = (site: string, siteId: number, siteRevision: number, lapsed?: { site: string; siteId: number; siteRevision: number; at: string }) =>
  ({ type: 'ClaimDomain', domain: D, claimant: { site, siteId, siteRevision }, ...(lapsed ? { lapsed } : {}) }) as const;
const address = { group: 'docs', slug: 'app' };
const live: SiteEvent = published('docs/app', 1, revision('r1'), meta('App'));

describe('the domain claim decider', () => {
  it('claims a free domain, or one released before', () => {
    claims.given().when(claim('docs/app', 1, 0)).then([claimed('docs/app', 1, 0)]);
    claims.given(claimed('blog', 2, 3), released('blog', 2)).when(claim('docs/app', 1, 0)).then([claimed('docs/app', 1, 0)]);
  });

  it('another site\'s claim is a conflict, unless that exact claim was found lapsed', () => {
    claims.given(claimed('blog', 2, 3)).when(claim('docs/app', 1, 0)).thenThrows(new ConflictError(`${D} is attached to blog`));
    // The same site path, another incarnation: another holder.
    claims.given(claimed('docs/app', 7, 3)).when(claim('docs/app', 1, 0)).thenThrows(ConflictError);
    const holder = { site: 'blog', siteId: 2, siteRevision: 3, at: '2026-01-01T00:00:00.000Z' };
    claims.given(claimed('blog', 2, 3)).when(claim('docs/app', 1, 0, holder)).then([claimed('docs/app', 1, 0)]);
    // A lapse found for an older claim does not replace a newer one.
    claims.given(claimed('blog', 2, 3)).when(claim('docs/app', 1, 0, { ...holder, siteRevision: 2 })).thenThrows(ConflictError);
  });

  it('the site\'s own claim is renewed at a new revision, and left alone at the same one', () => {
    claims.given(claimed('docs/app', 1, 0)).when(claim('docs/app', 1, 0)).then([]);
    claims.given(claimed('docs/app', 1, 0)).when(claim('docs/app', 1, 4)).then([claimed('docs/app', 1, 4)]);
  });

  it('only the holder releases; a release by a site that lost the claim changes nothing', () => {
    claims.given(claimed('docs/app', 1, 0)).when({ type: 'ReleaseDomain', domain: D, site: 'docs/app', siteId: 1 }).then([released('docs/app', 1)]);
    claims.given(claimed('blog', 2, 3)).when({ type: 'ReleaseDomain', domain: D, site: 'docs/app', siteId: 1 }).then([]);
    claims.given().when({ type: 'ReleaseDomain', domain: D, site: 'docs/app', siteId: 1 }).then([]);
  });
});

describe('custom domains on the site stream', () => {
  const attached: SiteEvent = { type: 'DomainAttached', data: { siteId: 1, domain: D } };
  it('attaches to a live site once; not to an absent or quarantined one', () => {
    sites.given(live).when({ type: 'AttachDomain', address, domain: D }).then([attached]);
    sites.given(live, attached).when({ type: 'AttachDomain', address, domain: D }).then([]);
    sites.given().when({ type: 'AttachDomain', address, domain: D }).thenThrows(NotFoundError);
    sites.given(live, quarantined(1)).when({ type: 'AttachDomain', address, domain: D }).thenThrows(new NotFoundError('site docs/app is in the trash'));
  });

  it('at most 10 per site', () => {
    const ten = Array.from({ length: 10 }, (_, i): SiteEvent => ({ type: 'DomainAttached', data: { siteId: 1, domain: `d${i}.acme.com` } }));
    sites.given(live, ...ten).when({ type: 'AttachDomain', address, domain: D }).thenThrows(ConflictError);
  });

  it('detaches what is attached, also in the trash; purge detaches every domain before SitePurged', () => {
    sites.given(live, attached).when({ type: 'DetachDomain', address, domain: D }).then([{ type: 'DomainDetached', data: { siteId: 1, domain: D } }]);
    sites.given(live, attached, quarantined(1)).when({ type: 'DetachDomain', address, domain: D }).then([{ type: 'DomainDetached', data: { siteId: 1, domain: D } }]);
    sites.given(live).when({ type: 'DetachDomain', address, domain: D }).thenThrows(new NotFoundError(`${D} is not attached to docs/app`));
    const events = sites.given(live, attached, quarantined(1)).when({ type: 'PurgeSite', address }).events();
    expect(events.map((e) => e.type)).toEqual(['DomainDetached', 'SitePurged']);
    expect(events[0]).toEqual({ type: 'DomainDetached', data: { siteId: 1, domain: D, reason: 'purged' } });
  });

  it('ends an unfinished attach only for the incarnation that claimed it, while live and not attached', () => {
    const abandon = { type: 'AbandonDomainAttach', address, domain: D, siteId: 1 } as const;
    sites.given(live).when(abandon).then([{ type: 'DomainDetached', data: { siteId: 1, domain: D, reason: 'unfinished' } }]);
    sites.given(live, attached).when(abandon).then([]);
    sites.given(live).when({ ...abandon, siteId: 2 }).then([]);
    expect(sites.state(live, attached, quarantined(1)).domains).toEqual([D]);
  });
});

describe('custom domain names', () => {
  const own = ['sites.test', 'alias.test'];
  it('accepts lower-case host names of two labels or more, punycode included', () => {
    for (const name of ['docs.acme.com', 'a.b.c.d.example.org', 'xn--bcher-kva.example', 'sites.test.evil.com', 'notsites.test']) expect(parseCustomDomain(name, own)).toBe(name);
  });
  it('refuses the service\'s own names and anything under them, and what is not a host name', () => {
    for (const name of ['sites.test', 'app.docs.sites.test', 'alias.test', 'x.alias.test', '', 'acme', 'Docs.acme.com', 'docs.acme.com.', 'docs.acme.com:443', '*.acme.com', '1.2.3.4', '[::1]', 'a_b.acme.com', 'bücher.example']) {
      expect(() => parseCustomDomain(name, own), name).toThrow(ValidationError);
    }
  });
  it('attack: with a control domain of its own, a name same-site with the portal is refused (a site there could set cookies the portal receives)', () => {
    const names = [...own, 'portal.corp.test'];
    for (const name of ['corp.test', 'x.corp.test', 'a.b.corp.test']) {
      expect(() => parseCustomDomain(name, names, 'portal.corp.test'), name).toThrow(/same-site with the portal/);
    }
    for (const name of ['docs.acme.com', 'corp.test.evil.com', 'notcorp.test']) expect(parseCustomDomain(name, names, 'portal.corp.test')).toBe(name);
    // A two-label control domain is its own zone: only it and the names under it (already its own names).
    expect(parseCustomDomain('docs.other.test', [...own, 'corp.test'], 'corp.test')).toBe('docs.other.test');
    // Without a separate control domain the portal is on the base domain, whose sites are same-site by design.
    expect(parseCustomDomain('x.corp.test', own)).toBe('x.corp.test');
  });
});

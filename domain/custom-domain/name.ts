import { ValidationError } from '../errors.ts';
import { isIpLiteral } from '../hosts.ts';
import { isLabel } from '../paths.ts';

/** Custom domains a site may have at once (spec §15). */
export const MAX_DOMAINS_PER_SITE = 10;

/** A DNS name's limit in its text form (RFC 1035: 255 octets on the wire). */
const MAX_NAME_LENGTH = 253;

/**
 * A custom domain as it may be attached (spec §15): a lower-case host name of at least two
 * labels, each a DNS label (letters, digits, inner hyphens, at most 63 characters; an IDN in
 * its `xn--` form), that is not one of the service's own names (`apexes`: the base domain,
 * the aliases, the control domain) nor under one of them: a name there is the control plane
 * or a site's own host, never someone's domain. Refused with 400, naming why: a port, a
 * wildcard, an IP literal, a trailing dot, upper case, one label, an over-long name.
 *
 * With a control domain of its own (`portalHost`), the portal is kept apart from publisher
 * content: a name in the portal's own zone (`corp.test` or `x.corp.test` beside
 * `portal.corp.test`) would be same-site with it and could set cookies the portal receives,
 * which is what the separate control domain exists to prevent.
 *
 * Strict rather than normalising, like grant targets (spec §2): what is stored is exactly what
 * was asked for, so `PUT …/Docs.Acme.com` cannot attach a name that reads differently.
 */
export function parseCustomDomain(raw: string, apexes: readonly string[], portalHost?: string): string {
  const name = raw;
  const quoted = JSON.stringify(name.slice(0, 300));
  const refuse = (why: string) => new ValidationError(`custom domain ${quoted} ${why}`);
  if (name === '') throw new ValidationError('a custom domain is required');
  if (name.length > MAX_NAME_LENGTH) throw refuse(`is longer than ${MAX_NAME_LENGTH} characters`);
  if (name.includes('*')) throw refuse('is a wildcard: attach each name on its own');
  if (name.startsWith('[') || name.includes(':')) throw refuse(name.startsWith('[') || name.split(':').length > 2 ? 'is an IP address, not a host name' : 'has a port: attach the host name alone');
  if (name !== name.toLowerCase()) throw refuse(`is not in lower case: attach ${JSON.stringify(name.toLowerCase())}`);
  if (name.endsWith('.')) throw refuse('ends with a dot: attach it without the trailing dot');
  // eslint-disable-next-line no-control-regex
  if (/[^\x00-\x7f]/.test(name)) throw refuse('is not ASCII: attach an internationalised name in its xn-- (punycode) form');
  if (isIpLiteral(name)) throw refuse('is an IP address, not a host name');
  const labels = name.split('.');
  if (labels.length < 2) throw refuse('is a single label: attach a fully qualified name (docs.example.com)');
  const bad = labels.find((label) => !isLabel(label));
  if (bad !== undefined) {
    throw refuse(bad === '' ? 'has an empty label' : `has the label ${JSON.stringify(bad)}, which is not a DNS label (letters, digits and inner hyphens, at most 63 characters)`);
  }
  const own = apexes.find((apex) => name === apex || name.endsWith(`.${apex}`));
  if (own !== undefined) {
    throw refuse(
      name === own
        ? 'is one of this service’s own names (its base domain, an alias or the control domain)'
        : `is under ${own}, one of this service’s own names: a site there is served at its own host, not attached`,
    );
  }
  const zone = portalHost === undefined ? undefined : portalZone(portalHost);
  if (zone !== undefined && (name === zone || name.endsWith(`.${zone}`))) {
    throw refuse(`is same-site with the portal at ${portalHost}: a site there could set cookies the portal receives; attach a name outside ${zone}`);
  }
  return name;
}

/** The names same-site with the portal's host: its parent, unless the host is itself a two-label name. */
function portalZone(portalHost: string): string {
  const labels = portalHost.split('.');
  return labels.length >= 3 ? labels.slice(1).join('.') : portalHost;
}

/**
 * Whether a path parameter can only be a custom domain: a site path's labels never hold a dot
 * and every custom domain does, so `DELETE /api/sites/docs/domains/x` (no dot) is the
 * unpublish of the site `docs/domains/x`, while `…/domains/x.example` is a detach.
 */
export function looksLikeDomain(value: string): boolean {
  return value.includes('.');
}

import ipaddr from 'ipaddr.js';

/**
 * Which destination addresses the service may connect to on its own. ipaddr.js (the
 * library Express's proxy-addr relies on) knows the special-purpose ranges of the IANA
 * registries; its `range()` is `unicast` only for ordinary public addresses. Everything
 * else is refused: loopback, RFC 1918 private, link-local (169.254.169.254, the cloud
 * metadata address, is one), carrier-grade NAT (100.100.100.200, another metadata address,
 * is in it), unspecified, broadcast, multicast, documentation and benchmarking ranges,
 * unique-local fc00::/7 (fd00:ec2::254 is one), IPv4-mapped ::ffff:0:0/96 and the other
 * IPv6 forms that carry an IPv4 address (NAT64, 6to4, Teredo), deprecated site-local.
 * IPv6 outside 2000::/3 is not assigned for global unicast and is refused as well.
 */
export type AddressVerdict = { readonly allowed: true } | { readonly allowed: false; readonly range: string };

const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');

export function classifyAddress(address: string): AddressVerdict {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    // No zone index: a scoped address (fe80::1%eth0) names a link, never a public host.
    if (address.includes('%')) return { allowed: false, range: 'scoped' };
    parsed = ipaddr.parse(address);
  } catch {
    return { allowed: false, range: 'unparsable' };
  }
  // ipaddr.parse also reads the old inet_aton forms (0x7f.1, 2130706433); only the
  // dotted-quad or IPv6 text a resolver returns is taken as an address at all.
  if (parsed.kind() === 'ipv4' && !ipaddr.IPv4.isValidFourPartDecimal(address)) return { allowed: false, range: 'unparsable' };
  const range = parsed.range();
  if (range !== 'unicast') return { allowed: false, range };
  if (parsed.kind() === 'ipv6' && !(parsed as ipaddr.IPv6).match(GLOBAL_UNICAST_V6)) return { allowed: false, range: 'unassigned' };
  return { allowed: true };
}

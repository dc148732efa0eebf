import { addressFromHostLabels, type SiteAddress } from '../domain/paths.ts';

export type HostTarget = { kind: 'apex' } | { kind: 'site'; address: SiteAddress } | { kind: 'unknown' };

/**
 * Classifies a `Host` header: the apex (or an alias apex) serves the control plane; a
 * name under one of them serves the site its labels spell; anything else is unknown.
 * Ports, case and a trailing dot are ignored; IDN names arrive as punycode labels and
 * are checked like any other label.
 */
export function classifyHost(rawHost: string | undefined, apexes: readonly string[]): HostTarget {
  if (!rawHost) return { kind: 'unknown' };
  let host = rawHost.trim().toLowerCase();
  if (host.startsWith('[')) return { kind: 'unknown' }; // IPv6 literal: never a site
  host = host.replace(/:\d+$/, '').replace(/\.$/, '');
  // Longest apex first: an alias nested under the base (sites.example.com under example.com) wins.
  for (const apex of [...apexes].sort((a, b) => b.length - a.length)) {
    if (host === apex) return { kind: 'apex' };
    if (host.endsWith(`.${apex}`)) {
      const address = addressFromHostLabels(host.slice(0, -apex.length - 1));
      return address ? { kind: 'site', address } : { kind: 'unknown' };
    }
  }
  return { kind: 'unknown' };
}

import { isIP } from 'node:net';
import { addressFromHostLabels, type SiteAddress } from '../domain/paths.ts';

export type HostTarget = { kind: 'apex' } | { kind: 'site'; address: SiteAddress } | { kind: 'unknown' };

/**
 * Classifies a `Host` header: the apex (or an alias apex) serves the control plane; a
 * name under one of them serves the site its labels spell; anything else is unknown.
 * Ports, case and a trailing dot are ignored; IDN names arrive as punycode labels and
 * are checked like any other label. `direct` names are the apex only as themselves, never
 * as the parent of site hosts: the listen address (see `listenHostNames`). An IP literal
 * is never a site (`127.0.0.1` must not read as a site under an apex `0.1`). `controlOnly`
 * apexes (the control domain, when it is not the base domain) serve the control plane and
 * no site: a name under one of them is unknown, as a site there would be same-site with the
 * portal, which the operator chose a separate domain to avoid.
 */
export function classifyHost(rawHost: string | undefined, apexes: readonly string[], direct: readonly string[] = [], controlOnly: readonly string[] = []): HostTarget {
  if (!rawHost) return { kind: 'unknown' };
  // The name without its port; an IPv6 literal keeps its brackets ([::1]:8080 → [::1]).
  const m = /^(\[[0-9a-f:.]+\]|[^:[\]]*)(?::\d+)?$/.exec(rawHost.trim().toLowerCase());
  if (!m) return { kind: 'unknown' };
  let host = m[1]!.replace(/\.$/, '');
  if (host.startsWith('[')) {
    try {
      host = `[${normalizeV6(host.slice(1, -1))}]`;
    } catch {
      return { kind: 'unknown' };
    }
  }
  if (apexes.includes(host) || direct.includes(host) || controlOnly.includes(host)) return { kind: 'apex' };
  if (host.startsWith('[') || isIP(host)) return { kind: 'unknown' };
  // Longest apex first: an alias nested under the base (sites.example.com under example.com) wins.
  for (const apex of [...apexes, ...controlOnly].sort((a, b) => b.length - a.length)) {
    if (apex.startsWith('[') || isIP(apex)) continue;
    if (host.endsWith(`.${apex}`)) {
      if (controlOnly.includes(apex)) return { kind: 'unknown' };
      const address = addressFromHostLabels(host.slice(0, -apex.length - 1));
      return address ? { kind: 'site', address } : { kind: 'unknown' };
    }
  }
  return { kind: 'unknown' };
}

/**
 * The names under which clients reach the service directly at its listen address, the
 * `direct` apexes of `classifyHost`: the start-up line says `on 127.0.0.1:8080`, so a
 * request to http://127.0.0.1:8080 must reach the apex, not "unknown host". The IP literal
 * itself (IPv6 in brackets, as a Host header writes it), plus `localhost` when the address
 * is loopback; a wildcard bind also answers on the loopback addresses. Other DNS names are
 * left out: whoever listens on a name has made it the base domain or an alias already.
 */
export function listenHostNames(listenHost: string): string[] {
  const host = listenHost.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  const family = isIP(host);
  if (family === 0) return host === 'localhost' ? ['localhost', '127.0.0.1', '[::1]'] : [];
  const literal = family === 6 ? `[${normalizeV6(host)}]` : host;
  const wildcard = host === '0.0.0.0' || literal === '[::]';
  const loopback = (family === 4 && host.startsWith('127.')) || literal === '[::1]';
  if (wildcard) return [literal, 'localhost', '127.0.0.1', '[::1]'];
  return loopback ? [literal, 'localhost'] : [literal];
}

/** An IPv6 address the way a URL (and so a browser's Host header) writes it: `[::1]`, never `[0:0:0:0:0:0:0:1]`. */
function normalizeV6(address: string): string {
  return new URL(`http://[${address}]/`).hostname.slice(1, -1);
}

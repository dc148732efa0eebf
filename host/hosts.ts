import { isIP } from 'node:net';
import { classifyHost, type HostKind, type HostNames } from '../domain/hosts.ts';
import type { Config } from './config.ts';

/**
 * The names the service answers to, from its configuration: the base domain, the aliases
 * and the control domain (host/config.ts counts it among the aliases) are apexes; sites
 * are beneath them but for a control domain of its own (spec §1: it serves no sites); the
 * listen address is the apex only as itself.
 */
export function hostNames(config: Pick<Config, 'baseDomain' | 'aliasDomains' | 'controlDomain' | 'listen'>): HostNames {
  return {
    apexes: [config.baseDomain, ...config.aliasDomains],
    direct: listenHostNames(config.listen.host),
    siteless: config.controlDomain === config.baseDomain ? [] : [config.controlDomain],
  };
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

/** Host headers remembered by `hostClassifier`; past it all are forgotten at once. */
const HOST_KINDS_MAX = 10_000;
/** Longer headers are classified each time (no site's host is this long). */
const HOST_KEY_MAX = 300;

/**
 * `classifyHost` for the HTTP server, remembering its answer by the raw `Host` header: it
 * is a pure function of the header and the configured names, and parsing the header anew
 * (normalising, sorting the apexes, checking every label) was about 2 µs of the 43 µs of
 * CPU a small file's answer costs (CPU profile of the serving benchmark). Bounded, so a
 * client sending made-up names costs a few MB at most.
 */
export function hostClassifier(names: HostNames): (rawHost: string | undefined) => HostKind {
  const known = new Map<string, HostKind>();
  return (rawHost) => {
    if (rawHost === undefined || rawHost.length > HOST_KEY_MAX) return classifyHost(rawHost, names);
    let kind = known.get(rawHost);
    if (kind === undefined) {
      kind = classifyHost(rawHost, names);
      if (known.size >= HOST_KINDS_MAX) known.clear();
      known.set(rawHost, kind);
    }
    return kind;
  };
}

import { addressFromHostLabels, isLabel, isSiteLabel, RESERVED_SEPARATOR, type SiteAddress } from './paths.ts';
import { parseVariant } from './site/previews.ts';

/**
 * The names the service answers to (spec §1). `apexes` serve the control plane and have
 * the sites beneath them: the base domain, the aliases and the control domain. `direct`
 * names are the apex only as themselves, never the parent of a site host: the listen
 * address a client or proxy calls the service by (host/hosts.ts `listenHostNames`).
 */
export type HostNames = {
  readonly apexes: readonly string[];
  readonly direct?: readonly string[];
  /**
   * Apexes with no site beneath them: the control domain when it is not the base domain.
   * A site there would be same-site with the portal, which is what the operator moved the
   * portal to a domain of its own to avoid.
   */
  readonly siteless?: readonly string[];
};

/**
 * What a host name is to the service. Site serving and the TLS ask (spec §15) both start
 * here, so a new kind of host (previews, permalinks, custom domains: spec §14, §15) is
 * one more case of this union, handled wherever it is switched on.
 */
export type HostKind =
  /** `name` is the configured apex (or direct name) it matched; `direct` for the listen address. */
  | { readonly kind: 'apex'; readonly name: string; readonly direct: boolean }
  /** A site's host; `apex` is the apex it lies under. */
  | { readonly kind: 'site'; readonly address: SiteAddress; readonly apex: string }
  /** A preview of a site (spec §14): `pr-42--app.docs.<base>`. */
  | { readonly kind: 'preview'; readonly address: SiteAddress; readonly name: string; readonly apex: string }
  /** A revision's permalink (spec §14): `v7--app.docs.<base>` is revision number 7 of `docs/app`. */
  | { readonly kind: 'permalink'; readonly address: SiteAddress; readonly number: number; readonly apex: string }
  /** A well-formed name under none of the apexes: nothing yet, a custom domain once one can be attached (spec §15). */
  | { readonly kind: 'external'; readonly name: string }
  /** Malformed, an IP literal, or under an apex but no site's host (too deep, a bad label). */
  | { readonly kind: 'unknown' };

const UNKNOWN: HostKind = { kind: 'unknown' };

/**
 * Classifies a `Host` header (or a bare host name): an apex serves the control plane; a
 * name under one spells the site of its labels (§1); anything else is unknown. Ports,
 * case and a trailing dot are ignored; IDN names arrive as punycode labels and are checked
 * like any other label. An IP literal is never a site (`127.0.0.1` must not read as a site
 * under an apex `0.1`). Pure: no DNS, no I/O.
 */
export function classifyHost(rawHost: string | undefined, names: HostNames): HostKind {
  const host = normalizeHost(rawHost);
  if (host === undefined) return UNKNOWN;
  const { apexes, direct = [], siteless = [] } = names;
  if (apexes.includes(host)) return { kind: 'apex', name: host, direct: false };
  if (direct.includes(host)) return { kind: 'apex', name: host, direct: true };
  if (isIpLiteral(host)) return UNKNOWN;
  // Longest apex first: an alias nested under the base (sites.example.com under example.com) wins.
  for (const apex of [...apexes].sort((a, b) => b.length - a.length)) {
    if (isIpLiteral(apex)) continue;
    if (host.endsWith(`.${apex}`)) {
      if (siteless.includes(apex)) return UNKNOWN;
      return siteHost(host.slice(0, -apex.length - 1), apex);
    }
  }
  return host.length <= 253 && host.split('.').every(isLabel) ? { kind: 'external', name: host } : UNKNOWN;
}

/**
 * The labels left of an apex: a site (`app.docs`), or, when the leftmost label holds `--`, a
 * preview or permalink of the site it names once split at the first `--` (spec §14). No site
 * label holds `--` (§1), so a name with one anywhere else names nothing.
 */
function siteHost(sub: string, apex: string): HostKind {
  const dot = sub.indexOf('.');
  const first = dot < 0 ? sub : sub.slice(0, dot);
  const cut = first.indexOf(RESERVED_SEPARATOR);
  const own = cut < 0 ? sub : sub.slice(cut + RESERVED_SEPARATOR.length);
  const address = addressFromHostLabels(own);
  if (!address || !isSiteLabel(address.slug) || !(address.group === '' || address.group.split('/').every(isSiteLabel))) return UNKNOWN;
  if (cut < 0) return { kind: 'site', address, apex };
  const variant = parseVariant(first.slice(0, cut));
  if (!variant || first.length > 63) return UNKNOWN;
  return variant.kind === 'preview' ? { kind: 'preview', address, name: variant.name, apex } : { kind: 'permalink', address, number: variant.number, apex };
}

/**
 * The host name of a `Host` header, lower case, without port or trailing dot; an IPv6
 * literal keeps its brackets in its shortest form (`[::1]`, as a browser writes it).
 * Undefined when it is not a host name at all.
 */
export function normalizeHost(rawHost: string | undefined): string | undefined {
  if (!rawHost) return undefined;
  const m = /^(\[[0-9a-f:.]+\]|[^:[\]]*)(?::\d+)?$/.exec(rawHost.trim().toLowerCase());
  if (!m) return undefined;
  const host = m[1]!.replace(/\.$/, '');
  if (!host.startsWith('[')) return host;
  try {
    return new URL(`http://${host}/`).hostname;
  } catch {
    return undefined;
  }
}

/**
 * An IP address rather than a name: IPv6 in brackets, or anything a URL parser reads as
 * IPv4, which is every name whose last label is a number (`10.0.0.1`, `127.1`, `0x7f.1`).
 * No top-level domain is numeric, so no real name is mistaken for one.
 */
export function isIpLiteral(host: string): boolean {
  return host.startsWith('[') || /(?:^|\.)(?:\d+|0x[0-9a-f]*)$/.test(host);
}

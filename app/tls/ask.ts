import { classifyHost, type HostKind, type HostNames } from '../../domain/hosts.ts';
import { fullPath } from '../../domain/paths.ts';
import { readable } from '../../domain/site/lifecycle.ts';
import { findPreview, previewCurrent } from '../../domain/site/previews.ts';
import type { SiteDoc } from '../../projections/documents.ts';
import type { Queries } from '../../projections/queries.ts';
import { authorizeCertificateAsk, type CertificateAsker } from '../authorize.ts';

/**
 * `GET /tls/ask?domain=` (spec §15): may a TLS-terminating proxy obtain a certificate for
 * this name? Yes for every name the service answers as itself or as a live site's host, no
 * for everything else, so a stranger pointing names at the proxy cannot make it request
 * certificates (and burn the CA's rate limits) for hosts that serve nothing.
 *
 * It reads only the read model (one indexed lookup at most, none for a name that cannot be
 * ours), never a blob: the proxy asks on the first TLS handshake for every new name, and an
 * answer must stay well under a millisecond at any number of sites.
 */

export type CertificateNames = HostNames & {
  /** SITES_BASE_DOMAIN. */
  readonly baseDomain: string;
  /** SITES_CONTROL_DOMAIN (the base domain unless set). */
  readonly controlDomain: string;
};

/** The read-model lookups an answer may need: one per kind of host that depends on state. */
export type CertificateFacts = {
  /** Is there a live site at this full path (hidden ones included: hidden means unlisted)? */
  readonly liveSite: (path: string) => Promise<boolean>;
  /** Does the live site at this path have this preview, not expired (spec §14)? */
  readonly livePreview: (path: string, name: string) => Promise<boolean>;
  /** Does the live site at this path retain (live or archived) the revision of this number (spec §14)? */
  readonly retainedRevision: (path: string, number: number) => Promise<boolean>;
  /** Is this name a custom domain of a live site (spec §15)? */
  readonly liveDomain: (name: string) => Promise<boolean>;
};

/** A DNS name as a certificate names it: letters, digits, dots and hyphens (no port, no wildcard, no IP in brackets). */
const CERT_NAME = /^[a-z0-9.-]{1,253}$/;

/**
 * The answer for one host kind. Each kind of host is one case; the exhaustive switch makes
 * a new kind (a preview, a permalink, a custom domain) a compile error until it is given
 * its answer here.
 */
export function certificateAllowed(host: HostKind, names: CertificateNames, facts: CertificateFacts): boolean | Promise<boolean> {
  switch (host.kind) {
    // The base domain, an alias, the control domain; not the listen address (an IP literal,
    // or localhost), which no public CA certifies and no proxy serves by name.
    case 'apex':
      return !host.direct;
    // A site's host, while the site is live (quarantined and purged ones are not). Under a
    // control domain of its own nothing is a site host: sites live under the base domain, and
    // the names beneath the control domain are the portal's neighbours (docs/explanation/security.md).
    case 'site':
      if (underOwnControlDomain(host.apex, names)) return false;
      return facts.liveSite(fullPath(host.address));
    // A preview's host while the preview exists and has not expired, beside a live site (spec §14, §15).
    case 'preview':
      if (underOwnControlDomain(host.apex, names)) return false;
      return facts.livePreview(fullPath(host.address), host.name);
    // A permalink's host while its revision is retained (live or archived) by a live site.
    case 'permalink':
      if (underOwnControlDomain(host.apex, names)) return false;
      return facts.retainedRevision(fullPath(host.address), host.number);
    // Not a name under any apex: yes when it is a custom domain of a live site (spec §15);
    // detached, of a site in the trash, or never attached: no.
    case 'external':
      return facts.liveDomain(host.name);
    case 'unknown':
      return false;
    default:
      return unreachable(host);
  }
}

const underOwnControlDomain = (apex: string, names: CertificateNames) => apex === names.controlDomain && names.controlDomain !== names.baseDomain;

/** The whole question: is `domain` a name to certify? */
export async function askCertificate(
  deps: { readonly queries: Pick<Queries, 'getSite' | 'siteByDomain'>; readonly now?: () => Date },
  names: CertificateNames,
  domain: string,
): Promise<boolean> {
  const name = domain.toLowerCase();
  if (!CERT_NAME.test(name) || name.endsWith('.')) return false;
  const live = async (path: string): Promise<SiteDoc | undefined> => {
    const site = await deps.queries.getSite(path);
    return site && readable(site.status) ? site : undefined;
  };
  const facts: CertificateFacts = {
    liveSite: async (path) => (await live(path)) !== undefined,
    liveDomain: async (host) => readable((await deps.queries.siteByDomain(host))?.status ?? 'absent'),
    livePreview: async (path, preview) => {
      const found = findPreview((await live(path))?.previews, preview);
      return found !== undefined && previewCurrent(found, (deps.now?.() ?? new Date()).getTime());
    },
    retainedRevision: async (path, number) => {
      const site = await live(path);
      return !!site && (site.live.number === number || site.archived.some((r) => r.number === number));
    },
  };
  return certificateAllowed(classifyHost(name, names), names, facts);
}

/**
 * The use case behind `GET /tls/ask`: the asker is authorized first (only the TLS proxy
 * itself; anyone else: NotFoundError, before anything is read), then the name is judged.
 * `domain` is the query parameter as sent: anything but one string is not a name to certify.
 */
export async function answerCertificateAsk(deps: { readonly queries: Pick<Queries, 'getSite' | 'siteByDomain'> }, asker: CertificateAsker, names: CertificateNames, domain: unknown): Promise<boolean> {
  authorizeCertificateAsk(asker);
  return typeof domain === 'string' && askCertificate(deps, names, domain);
}

function unreachable(host: never): never {
  throw new Error(`unhandled host kind ${JSON.stringify(host)}`);
}

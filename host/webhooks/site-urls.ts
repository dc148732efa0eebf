import type { SiteUrlOf } from '../../app/webhooks/payload.ts';
import { parseSitePath } from '../../domain/paths.ts';
import { siteHostLabels, type Variant } from '../../domain/site/previews.ts';

export type PublicScheme = 'http' | 'https';

/** The public origin of a host name: behind a TLS proxy the scheme's default port; locally the listen port. */
export function publicOrigin(scheme: PublicScheme, host: string, port: number): string {
  const defaultPort = scheme === 'https' ? 443 : 80;
  const showPort = scheme === 'http' && port !== defaultPort;
  return `${scheme}://${host}${showPort ? `:${port}` : ''}`;
}

/**
 * A payload's site URL by site path, remembered per path, variant and port (the port is
 * known once the service listens): a run of deliveries names the same few sites over and
 * over, and parsing the path each time showed in the sender's profile.
 */
export function webhookSiteUrls(scheme: PublicScheme, baseDomain: string, port: () => number): SiteUrlOf {
  const urls = new Map<string, string>();
  return (path: string, variant?: Variant): string => {
    const at = port();
    const key = `${at} ${path} ${variant ? JSON.stringify(variant) : ''}`;
    let url = urls.get(key);
    if (url === undefined) {
      if (urls.size >= 1024) urls.clear();
      url = `${publicOrigin(scheme, `${siteHostLabels(parseSitePath(path), variant)}.${baseDomain}`, at)}/`;
      urls.set(key, url);
    }
    return url;
  };
}

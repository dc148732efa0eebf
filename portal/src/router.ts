/** A tiny history router: routes are plain paths; the server answers every extension-less path with index.html. */

export type Route =
  | { name: 'sites' }
  | { name: 'site'; path: string }
  | { name: 'trash' }
  | { name: 'keys' }
  | { name: 'connections' }
  | { name: 'storage' }
  | { name: 'activity' }
  | { name: 'webhooks'; id?: string }
  | { name: 'notfound' };

const LABEL = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;

export function parseRoute(pathname: string): Route {
  const parts = pathname.split('/').filter((p) => p !== '');
  if (parts.length === 0) return { name: 'sites' };
  if (parts.length === 1 && parts[0] === 'trash') return { name: 'trash' };
  if (parts.length === 1 && parts[0] === 'keys') return { name: 'keys' };
  if (parts.length === 1 && parts[0] === 'connections') return { name: 'connections' };
  if (parts.length === 1 && parts[0] === 'storage') return { name: 'storage' };
  if (parts.length === 1 && parts[0] === 'activity') return { name: 'activity' };
  if (parts[0] === 'webhooks' && parts.length <= 2) return parts[1] ? { name: 'webhooks', id: parts[1] } : { name: 'webhooks' };
  if (parts[0] === 'sites' && parts.length >= 2 && parts.length <= 4 && parts.slice(1).every((p) => LABEL.test(p))) {
    return { name: 'site', path: parts.slice(1).join('/') };
  }
  return { name: 'notfound' };
}

/** The portal URL of a site's page. */
export const siteHref = (path: string): string => `/sites/${path}`;

type Listener = () => void;
let listener: Listener = () => {};

/** Installs the router: link clicks and back/forward call `onChange`. */
export function startRouter(onChange: Listener): void {
  listener = onChange;
  window.addEventListener('popstate', () => listener());
  document.addEventListener('click', (e) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    const a = (e.target as Element).closest?.('a');
    if (!a || a.hasAttribute('download') || a.target || a.origin !== location.origin) return;
    // The API and the docs (/docs/, served by the service, not the portal) load as pages of their own.
    if (a.pathname.startsWith('/api/') || a.pathname === '/docs' || a.pathname.startsWith('/docs/') || (a.hash && a.pathname === location.pathname)) return;
    e.preventDefault();
    navigate(a.pathname + a.search);
  });
}

/** Goes to a portal URL (pushing history) and re-renders. */
export function navigate(url: string, opts: { replace?: boolean } = {}): void {
  if (opts.replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  listener();
}

/** Updates the query of the current URL without re-rendering (the view already shows it). */
export function setQuery(params: Record<string, string | undefined>): void {
  const url = new URL(location.href);
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || v === '') url.searchParams.delete(k);
    else url.searchParams.set(k, v);
  }
  history.replaceState(null, '', url.pathname + url.search);
}

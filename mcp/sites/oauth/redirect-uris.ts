/**
 * Which redirect URIs a client may register (spec §2, OAuth 2.1 §2.3.1, RFC 8252 §7): an
 * allow-list, never a deny-list (a deny-list let `view-source:`, `filesystem:`, `ws:`,
 * `mailto:` and any scheme nobody thought of through).
 *   - `https://host/…`: anywhere, without user info;
 *   - `http://host/…` only when host is `localhost`, `127.0.0.1` or `[::1]` (native apps' loopback redirect);
 *   - a private-use scheme in reverse-domain form (`com.example.app:/cb`): the scheme has a dot.
 * Never a fragment, whitespace or control characters. The same check runs again at the
 * authorization endpoint, so a URI registered before this list existed is never redirected to.
 */

export type RedirectUriRefusal = { readonly error: 'invalid_redirect_uri'; readonly description: string };

const MAX_LENGTH = 2000;
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
/** A reverse domain name as a URI scheme (RFC 8252 §7.1): labels joined by dots, at least two. */
const PRIVATE_USE_SCHEME = /^[a-z][a-z0-9-]*(?:\.[a-z0-9-]+)+$/;
// C0 controls, space, DEL and C1 controls: the URL parser silently drops or trims some of them,
// so the URI a browser would be sent to would not be the one registered.
const UNSAFE_CHARS = /[\u0000-\u0020\u007f-\u009f]/;

export function checkRedirectUri(raw: unknown): RedirectUriRefusal | undefined {
  const bad = (description: string): RedirectUriRefusal => ({ error: 'invalid_redirect_uri', description });
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > MAX_LENGTH) {
    return bad(`each redirect URI must be a non-empty string of at most ${MAX_LENGTH} characters`);
  }
  const shown = JSON.stringify(raw.length > 100 ? `${raw.slice(0, 100)}…` : raw);
  if (UNSAFE_CHARS.test(raw)) return bad(`${shown} contains whitespace or control characters`);
  if (raw.includes('#')) return bad(`${shown} has a fragment`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return bad(`${shown} is not an absolute URI`);
  }
  const scheme = url.protocol.slice(0, -1);
  if (scheme === 'https' || scheme === 'http') {
    // `https:evil.example` and `https:\\evil.example` parse, but name their host in a way people misread.
    if (!/^https?:\/\/[^/\\]/i.test(raw)) return bad(`${shown} must be written as ${scheme}://host/…`);
    if (url.username || url.password) return bad(`${shown} carries user information`);
    if (scheme === 'http' && !LOOPBACK.has(url.hostname)) {
      return bad(`${shown}: http is allowed only for loopback hosts (localhost, 127.0.0.1, [::1]); use https`);
    }
    return undefined;
  }
  if (PRIVATE_USE_SCHEME.test(scheme)) return undefined;
  return bad(
    `${shown} uses the scheme ${JSON.stringify(`${scheme}:`)}, which is not allowed: use https, http on a loopback host, ` +
      'or a private-use scheme in reverse-domain form (com.example.app:/callback)',
  );
}

export const isAllowedRedirectUri = (raw: string): boolean => checkRedirectUri(raw) === undefined;

/** Loopback IP literals and `localhost`, as they appear in `URL.hostname`. */
const LOOPBACK_HOSTNAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * The registered redirect URI a request's `redirect_uri` names, as the string answers go to;
 * undefined when it names none. Exact string equality, with one exception RFC 8252 §7.3
 * requires: for an `http` loopback URI the port may differ, since a native app listens on
 * whatever port is free and a metadata document cannot know it in advance. Then the answer
 * goes to the registered URI with the request's port (the same scheme, loopback host, path
 * and query), so it still reaches nothing but the user's own machine.
 */
export function matchRedirectUri(registered: readonly string[], requested: string): string | undefined {
  if (!requested) return undefined;
  const exact = registered.find((u) => u === requested);
  if (exact !== undefined) return exact;
  if (checkRedirectUri(requested) !== undefined || !requested.startsWith('http://')) return undefined;
  const asked = new URL(requested);
  if (!LOOPBACK_HOSTNAMES.has(asked.hostname)) return undefined;
  for (const uri of registered) {
    if (!uri.startsWith('http://') || !URL.canParse(uri)) continue;
    const target = new URL(uri);
    if (target.hostname !== asked.hostname || target.pathname !== asked.pathname || target.search !== asked.search) continue;
    target.port = asked.port;
    // Only when the request wrote it exactly as the server would: the code is bound to this string.
    if (target.toString() === requested) return requested;
  }
  return undefined;
}

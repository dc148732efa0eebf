/**
 * A minimal cookie jar scoped per origin. Node's fetch keeps no cookies and
 * hides intermediate Set-Cookie headers when it follows redirects itself, so the
 * login flow keeps its own jar and follows redirects by hand.
 */

/** Cookies of one process, keyed by origin then by name. */
export type CookieJar = Map<string, Map<string, string>>;

/** An empty jar. */
export const createJar = (): CookieJar => new Map();

function bucket(jar: CookieJar, origin: string): Map<string, string> {
  let b = jar.get(origin);
  if (!b) jar.set(origin, (b = new Map()));
  return b;
}

/** Stores every Set-Cookie of a response for the origin of `url` (deletions included). */
export function storeCookies(jar: CookieJar, url: string, setCookies: string[]): void {
  const b = bucket(jar, new URL(url).origin);
  for (const line of setCookies) {
    const [pair, ...attrs] = line.split(';');
    const eq = pair.indexOf('=');
    if (eq <= 0) continue;
    const name = pair.slice(0, eq).trim();
    const value = pair.slice(eq + 1).trim();
    const expired = attrs.some((a) => {
      const [k, v = ''] = a.split('=').map((s) => s.trim());
      if (/^max-age$/i.test(k)) return Number(v) <= 0;
      if (/^expires$/i.test(k)) return Date.parse(v) < Date.now();
      return false;
    });
    if (expired || value === '') b.delete(name);
    else b.set(name, value);
  }
}

/** The `Cookie` header value for a request to `url`, or undefined when the origin has none. */
export function cookieHeader(jar: CookieJar, url: string): string | undefined {
  const b = jar.get(new URL(url).origin);
  if (!b || b.size === 0) return undefined;
  return [...b].map(([k, v]) => `${k}=${v}`).join('; ');
}

/** One cookie of an origin. */
export const getCookie = (jar: CookieJar, origin: string, name: string): string | undefined => jar.get(origin)?.get(name);

/** Forgets one cookie of an origin. */
export const dropCookie = (jar: CookieJar, origin: string, name: string): void => {
  jar.get(origin)?.delete(name);
};

/** Request/response shapes shared by the simulator's route modules. */

/** One inbound request, body already read. */
export type SimRequest = {
  host: 'flow' | 'auth';
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Record<string, string | string[] | undefined>;
  cookies: Record<string, string>;
  body: string;
};

/** One answer; `setCookies` are full Set-Cookie lines. */
export type SimResponse = {
  status: number;
  contentType?: string;
  body?: string;
  location?: string;
  setCookies?: string[];
};

/** Origins of the two listeners, for absolute Location headers. */
export type Origins = { flow: string; auth: string };

/** Parses a Cookie header. */
export function parseCookies(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0) out[part.slice(0, eq).trim()] = part.slice(eq + 1).trim();
  }
  return out;
}

/** A Set-Cookie line without `Secure`: the simulator speaks plain http on loopback. */
export const cookie = (name: string, value: string, maxAge?: number): string =>
  `${name}=${value}; Path=/; HttpOnly${maxAge !== undefined ? `; Max-Age=${maxAge}` : ''}`;

export const json = (status: number, value: unknown, contentType = 'application/json'): SimResponse => ({
  status,
  contentType,
  body: JSON.stringify(value),
});

export const plain = (status: number, body = ''): SimResponse => ({ status, contentType: 'text/plain', body });

export const html = (status: number, body: string): SimResponse => ({ status, contentType: 'text/html', body });

export const redirect = (location: string, setCookies?: string[]): SimResponse => ({ status: 302, location, setCookies });

/** The JSON 401 of an expired or missing session. */
export const NOT_AUTHENTICATED = json(401, { error: 'NotAuthenticated', redirect: '/' });

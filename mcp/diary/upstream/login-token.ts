/**
 * What the client reads from upstream to manage its login: the csrf token a
 * login starts from, and the answer that says the login has expired.
 */

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * `data.csrfToken` from the `PLAY_SESSION_FLOW` cookie, whose value is a JWT:
 * the middle segment is base64url JSON. Undefined when the value is not such a token.
 */
export function csrfTokenFromPlaySession(cookie: string | undefined): string | undefined {
  const parts = cookie?.split('.');
  if (!parts || parts.length !== 3) return undefined;
  try {
    const payload: unknown = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
    const data = isObject(payload) ? payload.data : undefined;
    return isObject(data) && typeof data.csrfToken === 'string' && data.csrfToken !== '' ? data.csrfToken : undefined;
  } catch {
    return undefined;
  }
}

/** True for the upstream "login expired" signal: a 401 whose JSON `error` is NotAuthenticated. */
export function isNotAuthenticated(status: number, body: string): boolean {
  if (status !== 401) return false;
  try {
    const v: unknown = JSON.parse(body);
    return isObject(v) && typeof v.error === 'string' && v.error.toLowerCase() === 'notauthenticated';
  } catch {
    return false;
  }
}

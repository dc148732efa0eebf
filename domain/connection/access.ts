import { hashToken, sameHash } from '../tokens.ts';

/**
 * What checking an access token needs to know of a connection. The read model's
 * connection document has these fields (and more), so the resource server passes it as is.
 */
export type AccessCredential = {
  readonly id: string;
  readonly revoked: boolean;
  readonly resource?: string;
  readonly accessTokenHash?: string;
  readonly accessExpiresAt?: string;
};

/**
 * Is this access token the connection's current one, unexpired, not revoked and bound
 * to `resource`? Returns the connection or the reason it is refused.
 */
export function checkAccessToken<C extends AccessCredential>(
  connection: C | undefined,
  token: string,
  resource: string,
  now: Date,
): { ok: true; connection: C } | { ok: false; reason: string } {
  const c = connection;
  if (!c || !c.accessTokenHash || !sameHash(c.accessTokenHash, hashToken(token))) return { ok: false, reason: 'unknown access token' };
  if (c.revoked) return { ok: false, reason: 'the connection was revoked' };
  if (!c.accessExpiresAt || Date.parse(c.accessExpiresAt) <= now.getTime()) return { ok: false, reason: 'the access token has expired' };
  if (c.resource !== resource) return { ok: false, reason: `the access token was issued for another resource (${c.resource ?? 'none'})` };
  return { ok: true, connection: c };
}

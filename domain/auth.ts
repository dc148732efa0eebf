import type { Actor } from './events.ts';
import type { Grant, Principal } from './grants.ts';
import { hashToken, looksLikeKeyToken, sameHash } from './tokens.ts';

/** An authenticated caller: what they may do, how events name them, and where they came from. */
export type Identity = {
  readonly principal: Principal;
  readonly actor: Actor;
  /**
   * `key`: an API key (ingest and management planes); `user`: forward-auth; `connection`: MCP
   * token; `system`: the service itself (jobs, the CLI on the data folder, the OAuth endpoints).
   */
  readonly via: 'key' | 'user' | 'connection' | 'system';
  readonly keyId?: number;
  /** Display name for `GET /api/me`. */
  readonly name: string;
};

/**
 * What authenticating a key needs to know of it. The read model's key document has these
 * fields (and more), so its lookup can be passed as is.
 */
export type KeyCredential = {
  readonly id: number;
  readonly name: string;
  readonly admin: boolean;
  readonly grants: readonly Grant[];
  readonly tokenHash: string;
  readonly revoked: boolean;
  readonly expiresAt?: string;
};

/**
 * Resolves a bearer token to a key identity. The lookup is by the SHA-256 of the token
 * (an index equality on a hash, so timing reveals nothing about the token), and the
 * stored hash is compared again in constant time. Expired and revoked keys are treated
 * exactly like unknown tokens.
 */
export async function authenticateKey(
  token: string,
  lookup: (tokenHash: string) => Promise<KeyCredential | undefined>,
  now: Date,
): Promise<Identity | undefined> {
  if (!looksLikeKeyToken(token)) return undefined;
  const hash = hashToken(token);
  const key = await lookup(hash);
  if (!key || !sameHash(key.tokenHash, hash) || key.revoked) return undefined;
  if (key.expiresAt && Date.parse(key.expiresAt) <= now.getTime()) return undefined;
  return {
    principal: key.admin ? { kind: 'admin' } : { kind: 'grants', grants: key.grants },
    actor: { kind: 'key', id: key.id, name: key.name },
    via: 'key',
    keyId: key.id,
    name: `key ${key.name}`,
  };
}

export function forwardAuthIdentity(user: string, admins: ReadonlySet<string>): Identity {
  return {
    principal: admins.has(user) ? { kind: 'admin' } : { kind: 'viewer' },
    actor: { kind: 'user', name: user },
    via: 'user',
    name: user,
  };
}

/**
 * The service acting on its own account: a job (the quarantine TTL, the expiry jobs), the
 * OAuth endpoints, the usage recorders. An identity like any other, with every capability
 * (what it may do is decided by the code that runs as it), named in events by `name`.
 */
export function systemIdentity(name: string): Identity {
  return { principal: { kind: 'admin' }, actor: { kind: 'system', name }, via: 'system', name };
}

/**
 * Whoever runs the `sites` command on the service's data folder: already holds everything
 * the service stores, so it acts as an admin, named in events as `cli:<user>`.
 */
export function operatorIdentity(user: string): Identity {
  return { principal: { kind: 'admin' }, actor: { kind: 'user', name: `cli:${user}` }, via: 'system', name: `cli:${user}` };
}

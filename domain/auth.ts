import { ForbiddenError } from './errors.ts';
import type { Actor } from './events.ts';
import { can, type Capability, type Grant, type Principal } from './grants.ts';
import { fullPath, type SiteAddress } from './paths.ts';
import { hashToken, looksLikeKeyToken, sameHash } from './tokens.ts';

/** An authenticated caller: what they may do, how events name them, and where they came from. */
export type Identity = {
  readonly principal: Principal;
  readonly actor: Actor;
  /** `key`: an API key (ingest and management planes); `user`: forward-auth; `connection`: MCP token. */
  readonly via: 'key' | 'user' | 'connection';
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

export function isAdmin(identity: Identity): boolean {
  return identity.principal.kind === 'admin';
}

/** Fails unless the identity holds `capability` on the site. Checked before any lookup. */
export function authorize(identity: Identity, capability: Capability, address: SiteAddress): void {
  if (!can(identity.principal, capability, address)) {
    throw new ForbiddenError(`this credential lacks the "${capability}" capability on ${fullPath(address)}`);
  }
}

/** Fails unless the identity is an admin (API keys, webhooks, the activity log). Checked before any lookup. */
export function authorizeAdmin(identity: Identity): void {
  if (!isAdmin(identity)) throw new ForbiddenError('this needs an admin');
}

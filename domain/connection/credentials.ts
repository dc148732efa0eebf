import { createHash, randomBytes } from 'node:crypto';

/**
 * The MCP connector's credentials. A client holds `<prefix><connection id>.<secret>`; the
 * id lets us find the connection without an index, and only hashes are ever stored.
 */
export type TokenKind = 'code' | 'access' | 'refresh';
const PREFIX: Record<TokenKind, string> = { code: 'mcpc_', access: 'mcpa_', refresh: 'mcpr_' };
const ID = /^[a-f0-9]{32}$/;
const SECRET = /^[A-Za-z0-9_-]{43}$/;

export function newConnectionId(): string {
  return randomBytes(16).toString('hex');
}

/** Is this a connection id at all? (a lookup of anything else answers "no such connection") */
export function isConnectionId(value: string): boolean {
  return ID.test(value);
}

/** A fresh credential of `kind` for connection `id` (32 random bytes, base64url). */
export function newCredential(kind: TokenKind, id: string): string {
  return `${PREFIX[kind]}${id}.${randomBytes(32).toString('base64url')}`;
}

/** The connection id inside a credential of `kind`, or undefined when it is not one. */
export function credentialConnection(kind: TokenKind, token: string): string | undefined {
  if (!token.startsWith(PREFIX[kind])) return undefined;
  const [id, secret, extra] = token.slice(PREFIX[kind].length).split('.');
  if (extra !== undefined || !id || !secret || !ID.test(id) || !SECRET.test(secret)) return undefined;
  return id;
}

/** RFC 7636 S256: BASE64URL(SHA256(ASCII(code_verifier))). */
export function s256(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/** RFC 7636 §4.1: 43–128 characters of [A-Z a-z 0-9 - . _ ~]. */
export function isCodeVerifier(value: string): boolean {
  return /^[A-Za-z0-9._~-]{43,128}$/.test(value);
}

/** A S256 challenge is the base64url of 32 bytes: 43 characters. */
export function isCodeChallenge(value: string): boolean {
  return /^[A-Za-z0-9_-]{43}$/.test(value);
}

/** A token pair as issued: plaintext for the client, hashes and expiries for the event. */
export type IssuedTokens = {
  readonly accessToken: string;
  readonly refreshToken: string;
  readonly accessExpiresAt: string;
  readonly refreshExpiresAt: string;
};

export function issueTokens(id: string, now: Date, ttl: { accessMs: number; refreshMs: number }): IssuedTokens {
  return {
    accessToken: newCredential('access', id),
    refreshToken: newCredential('refresh', id),
    accessExpiresAt: new Date(now.getTime() + ttl.accessMs).toISOString(),
    refreshExpiresAt: new Date(now.getTime() + ttl.refreshMs).toISOString(),
  };
}

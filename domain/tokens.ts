import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** `key_` + base64url of 32 random bytes (spec §2). */
export function newKeyToken(): string {
  return `key_${randomBytes(32).toString('base64url')}`;
}

const KEY_TOKEN = /^key_[A-Za-z0-9_-]{43}$/;
export function looksLikeKeyToken(token: string): boolean {
  return KEY_TOKEN.test(token);
}

/** Hex SHA-256: what is stored instead of a token. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Constant-time comparison of two hex hashes (equal length by construction). */
export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}

import { createHash, randomBytes } from 'node:crypto';
import { NotFoundError } from './errors.ts';
import type { ConnectionEvent, Recorded } from './events.ts';
import type { Grant } from './grants.ts';
import { hashToken, sameHash } from './tokens.ts';
import type { ConnectionDoc } from '../projections/documents.ts';
import { projectConnection } from '../projections/project.ts';

/**
 * The MCP connector's connections: pure state and decisions. A connection is created
 * at the consent screen with a one-time authorization code; redeeming the code (with
 * the PKCE verifier) issues an access token and a refresh token; every refresh rotates
 * both; presenting a refresh token that was already rotated away, or redeeming the code
 * twice, revokes the connection (OAuth 2.1 §4.3.1, §6.1 replay detection).
 */

/** OAuth error codes the token endpoint answers with (RFC 6749 §5.2, RFC 8707 §2). */
export type OAuthErrorCode = 'invalid_request' | 'invalid_client' | 'invalid_grant' | 'unsupported_grant_type' | 'invalid_target';

/** A refusal of the token endpoint; `revoke` set when the refusal also revokes the connection. */
export type GrantRefusal = { readonly error: OAuthErrorCode; readonly description: string; readonly revoke?: string };

/** How long an authorization code may be redeemed after consent. */
export const CODE_TTL_MS = 60_000;

/** What a client holds: `<prefix><connection id>.<secret>`; the id lets us find the connection without an index. */
export type TokenKind = 'code' | 'access' | 'refresh';
const PREFIX: Record<TokenKind, string> = { code: 'mcpc_', access: 'mcpa_', refresh: 'mcpr_' };
const ID = /^[a-f0-9]{32}$/;
const SECRET = /^[A-Za-z0-9_-]{43}$/;

export function newConnectionId(): string {
  return randomBytes(16).toString('hex');
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

export const foldConnection = (events: readonly Recorded[]): ConnectionDoc | null =>
  events.reduce<ConnectionDoc | null>((doc, e) => projectConnection(doc, e as Recorded<ConnectionEvent>), null);
export const evolveConnection = (doc: ConnectionDoc | null, events: readonly Recorded[]): ConnectionDoc | null =>
  events.reduce<ConnectionDoc | null>((d, e) => projectConnection(d, e as Recorded<ConnectionEvent>), doc);

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

export type GrantInput = {
  readonly id: string;
  readonly clientId: string;
  readonly clientName: string;
  readonly user: string;
  readonly grants: readonly Grant[];
  readonly resource: string;
  readonly code: string;
  readonly challenge: string;
  readonly redirectUri: string;
  readonly now: Date;
};

export function decideGrant(state: ConnectionDoc | null, input: GrantInput): ConnectionEvent[] {
  if (state) throw new Error(`connection ${input.id} already exists`); // ids are 128 random bits
  return [
    {
      type: 'ConnectionGranted',
      data: {
        id: input.id,
        clientId: input.clientId,
        clientName: input.clientName,
        user: input.user,
        grants: input.grants,
        refreshTokenHash: '',
        resource: input.resource,
        code: {
          hash: hashToken(input.code),
          challenge: input.challenge,
          redirectUri: input.redirectUri,
          expiresAt: new Date(input.now.getTime() + CODE_TTL_MS).toISOString(),
        },
      },
    },
  ];
}

export type RedeemInput = {
  readonly code: string;
  readonly verifier: string;
  readonly clientId: string;
  readonly redirectUri: string;
  /** The `resource` parameter, when the client sent one. */
  readonly resource?: string;
  readonly now: Date;
  readonly tokens: IssuedTokens;
};

/** Redeems the authorization code: checks client, redirect URI, expiry, resource and PKCE. */
export function decideRedeem(state: ConnectionDoc | null, input: RedeemInput): { events: ConnectionEvent[]; refusal?: GrantRefusal } {
  const code = state?.code;
  if (!state || !code || !sameHash(code.hash, hashToken(input.code))) return refuse('invalid_grant', 'unknown authorization code');
  if (state.clientId !== input.clientId) return refuse('invalid_grant', 'the authorization code was issued to another client');
  if (state.revoked) return refuse('invalid_grant', 'the connection of this authorization code was revoked');
  if (code.redeemed) {
    // OAuth 2.1 §4.1.3: a code used twice is denied, and the tokens it produced are revoked.
    return refuse('invalid_grant', 'the authorization code was already used; the connection is revoked', 'authorization code reused', state.id);
  }
  if (Date.parse(code.expiresAt) <= input.now.getTime()) return refuse('invalid_grant', 'the authorization code has expired');
  if (code.redirectUri !== input.redirectUri) return refuse('invalid_grant', 'redirect_uri does not match the authorization request');
  if (input.resource !== undefined && input.resource !== state.resource) {
    return refuse('invalid_target', `this server only issues tokens for the resource ${state.resource}`);
  }
  if (!isCodeVerifier(input.verifier) || s256(input.verifier) !== code.challenge) {
    return refuse('invalid_grant', 'code_verifier does not match the code_challenge (PKCE S256)');
  }
  const t = input.tokens;
  return {
    events: [
      {
        type: 'ConnectionCodeRedeemed',
        data: {
          id: state.id,
          accessTokenHash: hashToken(t.accessToken),
          accessExpiresAt: t.accessExpiresAt,
          refreshTokenHash: hashToken(t.refreshToken),
          refreshExpiresAt: t.refreshExpiresAt,
        },
      },
    ],
  };
}

export type RefreshInput = {
  readonly refreshToken: string;
  readonly clientId: string;
  readonly resource?: string;
  readonly now: Date;
  readonly tokens: IssuedTokens;
};

/** Rotates the token pair; a refresh token that was already rotated away revokes the connection. */
export function decideRefresh(state: ConnectionDoc | null, input: RefreshInput): { events: ConnectionEvent[]; refusal?: GrantRefusal } {
  if (!state) return refuse('invalid_grant', 'unknown refresh token');
  const hash = hashToken(input.refreshToken);
  const current = state.refreshTokenHash !== '' && sameHash(state.refreshTokenHash, hash);
  if (!current) {
    if (state.previousRefreshHashes.some((h) => h !== '' && sameHash(h, hash)) && !state.revoked) {
      // OAuth 2.1 §4.3.1: a rotated-away refresh token was replayed; someone else may hold it.
      return refuse('invalid_grant', 'the refresh token was already used; the connection is revoked', 'refresh token reused', state.id);
    }
    return refuse('invalid_grant', 'unknown refresh token');
  }
  if (state.revoked) return refuse('invalid_grant', 'the connection was revoked');
  if (state.clientId !== input.clientId) return refuse('invalid_grant', 'the refresh token was issued to another client');
  if (state.refreshExpiresAt && Date.parse(state.refreshExpiresAt) <= input.now.getTime()) {
    return refuse('invalid_grant', 'the refresh token has expired; authorize again');
  }
  if (input.resource !== undefined && input.resource !== state.resource) {
    return refuse('invalid_target', `this server only issues tokens for the resource ${state.resource}`);
  }
  const t = input.tokens;
  return {
    events: [
      {
        type: 'ConnectionRefreshed',
        data: {
          id: state.id,
          refreshTokenHash: hashToken(t.refreshToken),
          previousHash: state.refreshTokenHash,
          accessTokenHash: hashToken(t.accessToken),
          accessExpiresAt: t.accessExpiresAt,
          refreshExpiresAt: t.refreshExpiresAt,
        },
      },
    ],
  };
}

function refuse(error: OAuthErrorCode, description: string, revoke?: string, id?: string): { events: ConnectionEvent[]; refusal: GrantRefusal } {
  return {
    events: revoke && id ? [{ type: 'ConnectionRevoked', data: { id, reason: revoke } }] : [],
    refusal: { error, description, ...(revoke ? { revoke } : {}) },
  };
}

/**
 * Is this access token the connection's current one, unexpired, not revoked and bound
 * to `resource`? Returns the connection or the reason it is refused.
 */
export function checkAccessToken(
  doc: ConnectionDoc | undefined,
  token: string,
  resource: string,
  now: Date,
): { ok: true; connection: ConnectionDoc } | { ok: false; reason: string } {
  if (!doc || !doc.accessTokenHash || !sameHash(doc.accessTokenHash, hashToken(token))) return { ok: false, reason: 'unknown access token' };
  if (doc.revoked) return { ok: false, reason: 'the connection was revoked' };
  if (!doc.accessExpiresAt || Date.parse(doc.accessExpiresAt) <= now.getTime()) return { ok: false, reason: 'the access token has expired' };
  if (doc.resource !== resource) return { ok: false, reason: `the access token was issued for another resource (${doc.resource ?? 'none'})` };
  return { ok: true, connection: doc };
}

/**
 * OAuth clients (RFC 7591 registrations), one `oauthclient-…` stream each. Registration is
 * unauthenticated, so a registration nobody ever consented to must not cost space for
 * ever. `ClientRegistered` records the deadline (`unusedExpiresAt`, UNUSED_CLIENT_TTL_MS
 * after registration); the first consent marks the client used (`ClientUsed`, on the
 * client's stream, before the connection is granted) and lifts it; past it, an unused
 * client is over (`ClientRegistrationExpired`). All of it is decided from the client's own
 * stream, whose expected revision settles the race between a consent and the expiry job.
 * Registrations recorded before the deadline existed carry none: nothing on their stream
 * says whether a connection was granted to them, so they are kept.
 */
export const UNUSED_CLIENT_TTL_MS = 24 * 3_600_000;

export type ClientState = {
  readonly status: 'none' | 'registered' | 'expired';
  readonly clientId?: string;
  readonly registeredAt?: string;
  /** When the registration ends unless it is used first (absent: never). */
  readonly unusedExpiresAt?: string;
  /** A consent was granted to it (or was about to be): it never expires. */
  readonly used: boolean;
};

export const NO_CLIENT: ClientState = { status: 'none', used: false };

export function evolveClient(state: ClientState, event: ConnectionEvent): ClientState {
  switch (event.type) {
    case 'ClientRegistered': {
      const d = event.data;
      return { status: 'registered', clientId: d.clientId, registeredAt: d.registeredAt, ...(d.unusedExpiresAt ? { unusedExpiresAt: d.unusedExpiresAt } : {}), used: false };
    }
    case 'ClientUsed':
      return { ...state, used: true };
    case 'ClientRegistrationExpired':
      return { ...state, status: 'expired' };
    case 'ConnectionGranted':
    case 'ConnectionCodeRedeemed':
    case 'ConnectionRefreshed':
    case 'ConnectionRevoked':
    case 'ConnectionUsed':
      return state;
    default: {
      const never: never = event;
      return never;
    }
  }
}

export const foldClient = (events: readonly Recorded[]): ClientState =>
  events.reduce((s, e) => evolveClient(s, e as Recorded<ConnectionEvent>), NO_CLIENT);

/** Is an unused registration with this deadline over at `now`? (No deadline: never.) */
export function unusedExpired(unusedExpiresAt: string | undefined, now: Date): boolean {
  return unusedExpiresAt !== undefined && Date.parse(unusedExpiresAt) <= now.getTime();
}

/** Registered, and used or not past its deadline: what authorize and consent require. */
export function clientUsable(state: ClientState, now: Date): boolean {
  return state.status === 'registered' && (state.used || !unusedExpired(state.unusedExpiresAt, now));
}

export type RegisterClientInput = {
  readonly clientId: string;
  readonly name: string;
  readonly redirectUris: readonly string[];
  readonly clientUri?: string;
  readonly now: Date;
};

export function decideRegisterClient(state: ClientState, input: RegisterClientInput): ConnectionEvent[] {
  if (state.status !== 'none') throw new Error(`client ${input.clientId} already registered`); // ids are 128 random bits
  const { now, ...client } = input;
  const unusedExpiresAt = new Date(now.getTime() + UNUSED_CLIENT_TTL_MS).toISOString();
  return [{ type: 'ClientRegistered', data: { ...client, registeredAt: now.toISOString(), unusedExpiresAt } }];
}

/**
 * A consent is about to grant `connectionId` to the client: the client must still be
 * usable (unknown and expired clients are refused like unknown ones). Only the first
 * consent writes `ClientUsed`; later ones change nothing.
 */
export function decideClientUse(state: ClientState, input: { clientId: string; connectionId: string; now: Date }): ConnectionEvent[] {
  if (!clientUsable(state, input.now)) throw new NotFoundError('the client is not registered with this server (or its registration expired)');
  if (state.used) return [];
  return [{ type: 'ClientUsed', data: { clientId: input.clientId, connectionId: input.connectionId } }];
}

/** Ends a registration never used for a consent once its deadline has come; otherwise nothing. */
export function decideExpireClient(state: ClientState, now: Date): ConnectionEvent[] {
  if (state.status !== 'registered' || state.used || !unusedExpired(state.unusedExpiresAt, now)) return [];
  return [{ type: 'ClientRegistrationExpired', data: { clientId: state.clientId!, registeredAt: state.registeredAt! } }];
}

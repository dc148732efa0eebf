import { NotFoundError } from '../errors.ts';
import type { Grant } from '../grants.ts';
import { hashToken, sameHash } from '../tokens.ts';
import { isCodeVerifier, s256, type IssuedTokens } from './credentials.ts';
import type { ConnectionEvent } from './events.ts';
import type { Decider } from '../decider.ts';
import { evolveConnection, type ConnectionState } from './state.ts';

/**
 * The MCP connector's connections: decisions. A connection is created at the consent
 * screen with a one-time authorization code; redeeming the code (with the PKCE verifier)
 * issues an access token and a refresh token; every refresh rotates both; presenting a
 * refresh token that was already rotated away, or redeeming the code twice, revokes the
 * connection (OAuth 2.1 §4.3.1, §6.1 replay detection).
 */

/** OAuth error codes the token endpoint answers with (RFC 6749 §5.2, RFC 8707 §2). */
export type OAuthErrorCode = 'invalid_request' | 'invalid_client' | 'invalid_grant' | 'unsupported_grant_type' | 'invalid_target';

/** A refusal of the token endpoint; `revoke` set when the refusal also revokes the connection. */
export type GrantRefusal = { readonly error: OAuthErrorCode; readonly description: string; readonly revoke?: string };

/** How long an authorization code may be redeemed after consent. */
export const CODE_TTL_MS = 60_000;

/**
 * Commands on a `connection-…` stream. The connection id, the authorization code, the token
 * pair to issue and the time come in with the command, so `decide` stays pure.
 */
export type ConnectionCommand =
  | ({ readonly type: 'GrantConnection' } & GrantInput)
  | ({ readonly type: 'RedeemCode' } & RedeemInput)
  | ({ readonly type: 'RefreshTokens' } & RefreshInput)
  | { readonly type: 'RevokeConnection'; readonly id: string; readonly reason: string }
  /**
   * Its access token authorized a request; callers coalesce (at most one per minute). Decided
   * on the read model's state; its `ConnectionUsed` goes to the connection's usage stream.
   */
  | { readonly type: 'RecordConnectionUse'; readonly id: string; readonly at: Date };

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

export type RefreshInput = {
  readonly refreshToken: string;
  readonly clientId: string;
  readonly resource?: string;
  readonly now: Date;
  readonly tokens: IssuedTokens;
};

export function decideConnection(command: ConnectionCommand, state: ConnectionState | null): ConnectionEvent[] {
  switch (command.type) {
    case 'GrantConnection':
      return decideGrant(state, command);
    case 'RedeemCode':
    case 'RefreshTokens':
      return judgeTokenRequest(command, state).events;
    case 'RevokeConnection':
      if (!state || state.revoked) throw new NotFoundError(`no active connection ${command.id}`);
      return [{ type: 'ConnectionRevoked', data: { id: command.id, reason: command.reason } }];
    case 'RecordConnectionUse':
      return state && !state.revoked ? [{ type: 'ConnectionUsed', data: { id: command.id, at: command.at.toISOString() } }] : [];
    default: {
      const never: never = command;
      return never;
    }
  }
}

/**
 * Why the token endpoint refuses this request on this state, if it does. A refusal that
 * detects a replay also revokes the connection: `decide` then answers `ConnectionRevoked`,
 * and the caller answers with this refusal all the same.
 */
export function tokenRefusal(command: Extract<ConnectionCommand, { type: 'RedeemCode' | 'RefreshTokens' }>, state: ConnectionState | null): GrantRefusal | undefined {
  return judgeTokenRequest(command, state).refusal;
}

/** The connection aggregate: one `connection-<id>` stream per MCP connection. */
export const connectionDecider: Decider<ConnectionCommand, ConnectionState | null, ConnectionEvent> = {
  decide: decideConnection,
  evolve: evolveConnection,
  initialState: null,
};

type Judgement = { readonly events: ConnectionEvent[]; readonly refusal?: GrantRefusal };

function judgeTokenRequest(command: Extract<ConnectionCommand, { type: 'RedeemCode' | 'RefreshTokens' }>, state: ConnectionState | null): Judgement {
  return command.type === 'RedeemCode' ? judgeRedeem(state, command) : judgeRefresh(state, command);
}

function decideGrant(state: ConnectionState | null, input: GrantInput): ConnectionEvent[] {
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

/** Redeems the authorization code: checks client, redirect URI, expiry, resource and PKCE. */
function judgeRedeem(state: ConnectionState | null, input: RedeemInput): Judgement {
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

/** Rotates the token pair; a refresh token that was already rotated away revokes the connection. */
function judgeRefresh(state: ConnectionState | null, input: RefreshInput): Judgement {
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

function refuse(error: OAuthErrorCode, description: string, revoke?: string, id?: string): Judgement {
  return {
    events: revoke && id ? [{ type: 'ConnectionRevoked', data: { id, reason: revoke } }] : [],
    refusal: { error, description, ...(revoke ? { revoke } : {}) },
  };
}

import type { ConnectionEvent } from './events.ts';

/**
 * What the write side knows of a connection: enough to check a code, a refresh token or an
 * access token and to detect replays. `null` is "no such connection". Who approved it,
 * for which client and with which grants is in the read model's connection document.
 */
export type ConnectionState = {
  readonly id: string;
  readonly clientId: string;
  readonly revoked: boolean;
  /** RFC 8707 resource the connection's tokens are bound to. */
  readonly resource?: string;
  /** The authorization code of the consent; `redeemed` once exchanged (a second use revokes). */
  readonly code?: {
    readonly hash: string;
    readonly challenge: string;
    readonly redirectUri: string;
    readonly expiresAt: string;
    readonly redeemed: boolean;
  };
  /** Empty until the code is redeemed. */
  readonly refreshTokenHash: string;
  /** Every refresh token hash this connection ever used; a reuse of one revokes it. */
  readonly previousRefreshHashes: readonly string[];
  readonly refreshExpiresAt?: string;
  /** The current access token (hash and expiry); only one is valid at a time. */
  readonly accessTokenHash?: string;
  readonly accessExpiresAt?: string;
};

/**
 * One event onto a connection. Generic so the read model's richer document (the same fields
 * and more) goes through the same token rules: fields this does not know are carried along.
 */
export function applyConnectionEvent<S extends ConnectionState>(state: S | null, event: ConnectionEvent): S | ConnectionState | null {
  switch (event.type) {
    case 'ConnectionGranted': {
      const d = event.data;
      return {
        id: d.id,
        clientId: d.clientId,
        revoked: false,
        refreshTokenHash: d.refreshTokenHash,
        previousRefreshHashes: [],
        ...(d.resource !== undefined ? { resource: d.resource } : {}),
        ...(d.code ? { code: { ...d.code, redeemed: false } } : {}),
      };
    }
    case 'ConnectionCodeRedeemed': {
      const d = event.data;
      return (
        state && {
          ...state,
          refreshTokenHash: d.refreshTokenHash,
          accessTokenHash: d.accessTokenHash,
          accessExpiresAt: d.accessExpiresAt,
          refreshExpiresAt: d.refreshExpiresAt,
          ...(state.code ? { code: { ...state.code, redeemed: true } } : {}),
        }
      );
    }
    case 'ConnectionRefreshed': {
      const d = event.data;
      return (
        state && {
          ...state,
          refreshTokenHash: d.refreshTokenHash,
          previousRefreshHashes: [...state.previousRefreshHashes, d.previousHash],
          ...(d.accessTokenHash !== undefined ? { accessTokenHash: d.accessTokenHash } : {}),
          ...(d.accessExpiresAt !== undefined ? { accessExpiresAt: d.accessExpiresAt } : {}),
          ...(d.refreshExpiresAt !== undefined ? { refreshExpiresAt: d.refreshExpiresAt } : {}),
        }
      );
    }
    case 'ConnectionRevoked':
      return state && { ...state, revoked: true };
    case 'ConnectionUsed':
      return state;
    default: {
      const never: never = event;
      return never;
    }
  }
}

/** One event onto the write side's state (the decider's `evolve`). */
export const evolveConnection = (state: ConnectionState | null, event: ConnectionEvent): ConnectionState | null => applyConnectionEvent(state, event);


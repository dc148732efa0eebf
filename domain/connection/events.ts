import type { Grant } from '../grants.ts';

/**
 * Events of the MCP connector's `connection-…` streams. Only hashes of codes and tokens
 * are stored. The optional fields were added with the OAuth server (mcp/sites): a
 * connection is granted at the consent screen together with its one-time authorization
 * code; redeeming the code issues the first token pair.
 */
export type ConnectionEvent =
  | {
      readonly type: 'ConnectionGranted';
      readonly data: {
        readonly id: string;
        readonly clientId: string;
        readonly clientName: string;
        readonly user: string;
        readonly grants: readonly Grant[];
        /** Empty until the authorization code is redeemed (`ConnectionCodeRedeemed`). */
        readonly refreshTokenHash: string;
        /** RFC 8707 resource the tokens are bound to (the `/mcp` URL). */
        readonly resource?: string;
        /** The one-time authorization code: its hash, PKCE S256 challenge, redirect URI and expiry. */
        readonly code?: {
          readonly hash: string;
          readonly challenge: string;
          readonly redirectUri: string;
          readonly expiresAt: string;
        };
      };
    }
  | {
      readonly type: 'ConnectionCodeRedeemed';
      readonly data: {
        readonly id: string;
        readonly accessTokenHash: string;
        readonly accessExpiresAt: string;
        readonly refreshTokenHash: string;
        readonly refreshExpiresAt: string;
      };
    }
  | {
      readonly type: 'ConnectionRefreshed';
      readonly data: {
        readonly id: string;
        readonly refreshTokenHash: string;
        readonly previousHash: string;
        readonly accessTokenHash?: string;
        readonly accessExpiresAt?: string;
        readonly refreshExpiresAt?: string;
      };
    }
  | { readonly type: 'ConnectionRevoked'; readonly data: { readonly id: string; readonly reason: string } }
  /** Its access token authorized a request (coalesced: at most one per connection per minute, like `KeyUsed`). */
  /**
   * Written at most once per connection per coalescing window, to the connection's usage
   * stream (`connectionUsageStream`); logs from before that stream existed hold it in `connection-<id>`.
   */
  | { readonly type: 'ConnectionUsed'; readonly data: { readonly id: string; readonly at: string } };

import type { Grant } from './grants.ts';

/** One immutable snapshot of a site's files, as recorded when it was published. */
export type RevisionInfo = {
  readonly id: string;
  /** SHA-256 of the manifest blob (path → hash, size, type). */
  readonly manifest: string;
  readonly files: number;
  /** Byte total of the revision's files. */
  readonly size: number;
  readonly favicon?: { readonly hash: string; readonly type: string };
};

/** Site metadata as stored: absent optional fields are left out. */
export type SiteMeta = {
  readonly title: string;
  readonly description?: string;
  readonly date?: string;
  readonly tags?: readonly string[];
  readonly repo?: string;
  readonly preview?: string;
  readonly hidden: boolean;
};

/** Who did it: stored in every event's metadata, this is the audit trail. */
export type Actor =
  | { readonly kind: 'key'; readonly id: number; readonly name: string }
  | { readonly kind: 'user'; readonly name: string }
  | { readonly kind: 'connection'; readonly id: string; readonly name: string; readonly user?: string }
  | { readonly kind: 'system'; readonly name: string };

export type EventMeta = { readonly actor: Actor; readonly at: string };

/** Events of a `site-…` stream. A purge ends an incarnation; a later publish starts the next one. */
export type SiteEvent =
  | {
      readonly type: 'SitePublished';
      readonly data: {
        readonly siteId: number;
        readonly group: string;
        readonly slug: string;
        /** True when this publish started a new incarnation (new site id). */
        readonly created: boolean;
        readonly revision: RevisionInfo;
        readonly meta: SiteMeta;
      };
    }
  | { readonly type: 'SiteArchived'; readonly data: { readonly siteId: number; readonly revisionId: string } }
  | {
      readonly type: 'RevisionDropped';
      readonly data: { readonly siteId: number; readonly revisionId: string; readonly manifest: string; readonly favicon?: string };
    }
  | {
      readonly type: 'SiteRolledBack';
      readonly data: { readonly siteId: number; readonly revisionId: string; readonly previousRevisionId: string };
    }
  | { readonly type: 'SiteQuarantined'; readonly data: { readonly siteId: number } }
  | { readonly type: 'SiteRestored'; readonly data: { readonly siteId: number } }
  | {
      readonly type: 'SitePurged';
      readonly data: {
        readonly siteId: number;
        readonly revisions: readonly { readonly id: string; readonly manifest: string; readonly favicon?: string }[];
      };
    }
  | { readonly type: 'SitePatched'; readonly data: { readonly siteId: number; readonly meta: SiteMeta } };

/** Events of a `key-…` stream. */
export type KeyEvent =
  | {
      readonly type: 'KeyIssued';
      readonly data: {
        readonly id: number;
        readonly name: string;
        readonly admin: boolean;
        readonly grants: readonly Grant[];
        /** Hex SHA-256 of the token; the token itself is never stored. */
        readonly tokenHash: string;
        readonly expiresAt?: string;
      };
    }
  | { readonly type: 'KeyRevoked'; readonly data: { readonly id: number } }
  /** Written at most once per key per coalescing window, never per request. */
  | { readonly type: 'KeyUsed'; readonly data: { readonly id: number; readonly at: string } };

/** Hands out a small integer id: the id is the stream revision of this event + 1. */
export type SequenceEvent = { readonly type: 'IdAllocated'; readonly data: { readonly id: number } };

/**
 * Events of the MCP connector's `connection-…` and `oauthclient-…` streams. Only hashes of
 * codes and tokens are stored. The optional fields were added with the OAuth server
 * (mcp/sites): a connection is granted at the consent screen together with its one-time
 * authorization code; redeeming the code issues the first token pair.
 */
export type ConnectionEvent =
  | {
      readonly type: 'ClientRegistered';
      readonly data: {
        readonly clientId: string;
        readonly name: string;
        readonly redirectUris: readonly string[];
        readonly registeredAt: string;
        /** RFC 7591 `client_uri`, shown on the consent screen. */
        readonly clientUri?: string;
        /**
         * When the registration ends unless a consent was granted to it by then (24 h after
         * registering). Absent on registrations recorded before expiry existed: kept for good.
         */
        readonly unusedExpiresAt?: string;
      };
    }
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
  | { readonly type: 'ConnectionUsed'; readonly data: { readonly id: string; readonly at: string } }
  /**
   * On the client's stream, written once, before its first connection is granted: from then
   * on the registration is in use and never expires. Written first so that "a connection
   * was granted to this client" always implies this event (the write side knows it from
   * the client's own stream, without asking the read model).
   */
  | { readonly type: 'ClientUsed'; readonly data: { readonly clientId: string; readonly connectionId: string } }
  /** On the client's stream: a registration never used for a consent, past its `unusedExpiresAt`. Ends the client. */
  | { readonly type: 'ClientRegistrationExpired'; readonly data: { readonly clientId: string; readonly registeredAt: string } };

export type DomainEvent = SiteEvent | KeyEvent | SequenceEvent | ConnectionEvent;
export type DomainEventType = DomainEvent['type'];

/** An event as read back from a store: its stream position and metadata attached. */
export type Recorded<E extends DomainEvent = DomainEvent> = E & {
  readonly stream: string;
  /** 0-based revision of this event within its stream. */
  readonly revision: number;
  /** Opaque, adapter-specific global position; projections store it as their checkpoint. */
  readonly position: string;
  readonly meta: EventMeta;
};

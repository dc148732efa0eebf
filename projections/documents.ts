import type { Actor, RevisionInfo, SiteMeta } from '../domain/events.ts';
import type { Grant } from '../domain/grants.ts';
import type { PreviewInfo } from '../domain/site/previews.ts';

/** Read-model view of one site (the current incarnation at one address). Purged sites have none. */
export type SiteDoc = {
  readonly stream: string;
  readonly siteId: number;
  readonly group: string;
  readonly slug: string;
  /** Full path: group labels then slug, `/`-joined. */
  readonly path: string;
  readonly status: 'live' | 'quarantined';
  readonly meta: SiteMeta;
  readonly live: RevisionInfo;
  /** Archived revisions, most recently archived first. */
  readonly archived: readonly RevisionInfo[];
  readonly createdAt: string;
  readonly updatedAt: string;
  /** Who made the change `updatedAt` is the time of (absent in documents projected before it was recorded). */
  readonly updatedBy?: Actor;
  readonly deletedAt?: string;
  /** Number of the newest revision of this incarnation (spec §14; absent in documents projected before permalinks). */
  readonly lastNumber?: number;
  /** Its previews by name (spec §14); absent: none. Offline while the site is in the trash. */
  readonly previews?: readonly PreviewInfo[];
  /** Custom domains attached (spec §15), sorted; absent when none (and in documents projected before they existed). */
  readonly domains?: readonly string[];
};

export type KeyDoc = {
  readonly id: number;
  readonly name: string;
  readonly admin: boolean;
  readonly grants: readonly Grant[];
  readonly tokenHash: string;
  readonly createdAt: string;
  readonly expiresAt?: string;
  readonly lastUsedAt?: string;
  readonly revoked: boolean;
  /** When and by whom it was revoked (absent on live keys, and in documents projected before they were recorded). */
  readonly revokedAt?: string;
  readonly revokedBy?: Actor;
  readonly createdBy?: Actor;
};

/**
 * When a key was last used, from its usage stream (`keyuse-<id>`). Kept apart from the key's
 * document so that each has its own stream revision; the read model merges it into the
 * `KeyDoc` it answers with (`withLastUse`).
 */
export type KeyUseDoc = {
  readonly id: number;
  readonly lastUsedAt: string;
};

/**
 * When a connection was last used, from its usage stream (`connectionuse-<id>`), kept apart
 * from the connection's document like a key's (`withLastUse` merges it in when read).
 */
export type ConnectionUseDoc = {
  readonly id: string;
  readonly lastUsedAt: string;
};

export type OAuthClientDoc = {
  readonly clientId: string;
  readonly name: string;
  readonly redirectUris: readonly string[];
  readonly registeredAt: string;
  readonly clientUri?: string;
  /** When the first consent was granted to it (`ClientUsed`). */
  readonly usedAt?: string;
  /** While it was never used: when the registration ends (24 h after it was made). Absent once used, and on old registrations. */
  readonly unusedExpiresAt?: string;
};

export type ConnectionDoc = {
  readonly id: string;
  readonly clientId: string;
  readonly clientName: string;
  readonly user: string;
  readonly grants: readonly Grant[];
  readonly refreshTokenHash: string;
  /** Every refresh token hash this connection ever used; a reuse of one revokes it. */
  readonly previousRefreshHashes: readonly string[];
  readonly createdAt: string;
  readonly lastRefreshedAt?: string;
  /** When its access token last authorized a request (coalesced `ConnectionUsed`). */
  readonly lastUsedAt?: string;
  readonly revoked: boolean;
  readonly revokedAt?: string;
  readonly revokedReason?: string;
  /** RFC 8707 resource the connection's tokens are bound to. */
  readonly resource?: string;
  /** The current access token (hash and expiry); only one is valid at a time. */
  readonly accessTokenHash?: string;
  readonly accessExpiresAt?: string;
  readonly refreshExpiresAt?: string;
  /** The authorization code of the consent; `redeemed` once exchanged (a second use revokes). */
  readonly code?: {
    readonly hash: string;
    readonly challenge: string;
    readonly redirectUri: string;
    readonly expiresAt: string;
    readonly redeemed: boolean;
  };
};

/**
 * The kinds of read-model documents, one per stream family. `sequence` and `webhook` streams
 * have none here: only their revision is recorded, so a command on them can wait for the
 * projector like any other (webhooks live in their own store, projections/webhooks.ts).
 */
export type DocKind = 'site' | 'key' | 'keyuse' | 'connection' | 'connectionuse' | 'oauthclient' | 'sequence' | 'webhook';

/** What the read model holds for one stream: the last applied revision and the document (null: none). */
export type StreamRecord = {
  readonly stream: string;
  readonly kind: DocKind;
  readonly revision: number;
  readonly doc: SiteDoc | KeyDoc | KeyUseDoc | ConnectionDoc | ConnectionUseDoc | OAuthClientDoc | null;
};

/**
 * A key or connection document with the use its usage stream recorded: the later of the two
 * times (a log written before usage streams existed has uses on the document's own stream, a
 * newer one on both; recorded uses are never taken back).
 */
export function withLastUse<T extends { readonly lastUsedAt?: string }>(doc: T, lastUsedAt: string | null | undefined): T {
  if (!lastUsedAt || (doc.lastUsedAt !== undefined && doc.lastUsedAt >= lastUsedAt)) return doc;
  return { ...doc, lastUsedAt };
}

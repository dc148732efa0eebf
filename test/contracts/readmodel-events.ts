/**
 * Small builders of recorded events for the projection specs and the read-model
 * contract suite: a log hands out per-stream revisions and global positions the way
 * an event store would, and each builder returns a plain domain event.
 */
import type { Actor, DomainEvent, Recorded, RevisionInfo, SiteEvent, SiteMeta } from '../../domain/events.ts';
import type { Grant } from '../../domain/grants.ts';
import { parseSitePath } from '../../domain/paths.ts';
import { siteStream } from '../../domain/streams.ts';

export const ACTOR: Actor = { kind: 'key', id: 1, name: 'ci' };
const BASE = Date.parse('2026-01-01T00:00:00.000Z');

/** Positions are zero-padded numbers, so string order is log order. */
export const positionOf = (n: number): string => String(n).padStart(12, '0');

export type EventLog = {
  /** Appends one event to `stream` (time: one minute per global position unless `at` is given). */
  add<E extends DomainEvent>(stream: string, event: E, at?: string): Recorded<E>;
  /** Appends to the stream of a site path (`docs/app`). */
  site(path: string, event: SiteEvent, at?: string): Recorded<SiteEvent>;
  /** Every event recorded so far, in log order. */
  readonly events: Recorded[];
};

export function eventLog(): EventLog {
  const revisions = new Map<string, number>();
  const events: Recorded[] = [];
  const add = <E extends DomainEvent>(stream: string, event: E, at?: string): Recorded<E> => {
    const revision = (revisions.get(stream) ?? -1) + 1;
    revisions.set(stream, revision);
    const n = events.length + 1;
    const recorded = {
      ...event,
      stream,
      revision,
      position: positionOf(n),
      meta: { actor: ACTOR, at: at ?? new Date(BASE + n * 60_000).toISOString() },
    } as Recorded<E>;
    events.push(recorded);
    return recorded;
  };
  return {
    add,
    site: (path, event, at) => add(streamOfPath(path), event, at),
    events,
  };
}

export const streamOfPath = (path: string): string => siteStream(parseSitePath(path));

/** A revision whose manifest and favicon hashes are derived from its id (distinct per revision). */
export function revision(id: string, opts: { manifest?: string; favicon?: string; files?: number; size?: number } = {}): RevisionInfo {
  return {
    id,
    manifest: opts.manifest ?? `m-${id}`,
    files: opts.files ?? 1,
    size: opts.size ?? 100,
    ...(opts.favicon ? { favicon: { hash: opts.favicon, type: 'image/png' } } : {}),
  };
}

export function meta(title: string, extra: Partial<SiteMeta> = {}): SiteMeta {
  return { hidden: false, ...extra, title };
}

export function published(path: string, siteId: number, rev: RevisionInfo, m: SiteMeta, created = true): SiteEvent {
  const { group, slug } = parseSitePath(path);
  return { type: 'SitePublished', data: { siteId, group, slug, created, revision: rev, meta: m } };
}

export const archived = (siteId: number, revisionId: string): SiteEvent => ({ type: 'SiteArchived', data: { siteId, revisionId } });
export const dropped = (siteId: number, revisionId: string, manifest = `m-${revisionId}`): SiteEvent => ({
  type: 'RevisionDropped',
  data: { siteId, revisionId, manifest },
});
export const rolledBack = (siteId: number, revisionId: string, previousRevisionId: string): SiteEvent => ({
  type: 'SiteRolledBack',
  data: { siteId, revisionId, previousRevisionId },
});
export const quarantined = (siteId: number): SiteEvent => ({ type: 'SiteQuarantined', data: { siteId } });
export const restored = (siteId: number): SiteEvent => ({ type: 'SiteRestored', data: { siteId } });
export const purged = (siteId: number, revisions: readonly { id: string; manifest: string }[] = []): SiteEvent => ({
  type: 'SitePurged',
  data: { siteId, revisions },
});
export const patched = (siteId: number, m: SiteMeta): SiteEvent => ({ type: 'SitePatched', data: { siteId, meta: m } });
export const domainAttached = (siteId: number, domain: string): SiteEvent => ({ type: 'DomainAttached', data: { siteId, domain } });
export const domainDetached = (siteId: number, domain: string, reason?: 'purged' | 'unfinished'): SiteEvent => ({
  type: 'DomainDetached',
  data: { siteId, domain, ...(reason ? { reason } : {}) },
});

export const GRANT: Grant = { kind: 'group', target: 'docs', permissions: ['publish'] };

export const keyIssued = (id: number, tokenHash: string, extra: { admin?: boolean; expiresAt?: string } = {}): DomainEvent => ({
  type: 'KeyIssued',
  data: { id, name: `key ${id}`, admin: extra.admin ?? false, grants: [GRANT], tokenHash, ...(extra.expiresAt ? { expiresAt: extra.expiresAt } : {}) },
});
export const keyRevoked = (id: number): DomainEvent => ({ type: 'KeyRevoked', data: { id } });
export const keyUsed = (id: number, at: string): DomainEvent => ({ type: 'KeyUsed', data: { id, at } });

/** A registration; without `unusedExpiresAt`, one recorded before unused registrations expired. */
export const clientRegistered = (clientId: string, registeredAt = '2026-01-01T00:00:00.000Z', unusedExpiresAt?: string): DomainEvent => ({
  type: 'ClientRegistered',
  data: { clientId, name: `client ${clientId}`, redirectUris: ['https://claude.example/cb'], registeredAt, ...(unusedExpiresAt ? { unusedExpiresAt } : {}) },
});
/** A registration as made now: it ends a day later unless used. */
export const clientRegisteredExpiring = (clientId: string, registeredAt: string): DomainEvent =>
  clientRegistered(clientId, registeredAt, new Date(Date.parse(registeredAt) + 86_400_000).toISOString());
export const clientUsed = (clientId: string, connectionId: string): DomainEvent => ({ type: 'ClientUsed', data: { clientId, connectionId } });
export const clientExpired = (clientId: string, registeredAt = '2026-01-01T00:00:00.000Z'): DomainEvent => ({
  type: 'ClientRegistrationExpired',
  data: { clientId, registeredAt },
});
export const connectionGranted = (id: string, clientId: string, refreshTokenHash: string): DomainEvent => ({
  type: 'ConnectionGranted',
  data: { id, clientId, clientName: `client ${clientId}`, user: 'alice', grants: [GRANT], refreshTokenHash },
});
export const connectionCodeRedeemed = (id: string, refreshTokenHash: string, accessTokenHash: string): DomainEvent => ({
  type: 'ConnectionCodeRedeemed',
  data: {
    id,
    accessTokenHash,
    accessExpiresAt: '2026-01-01T01:00:00.000Z',
    refreshTokenHash,
    refreshExpiresAt: '2026-02-01T00:00:00.000Z',
  },
});
export const connectionRefreshed = (id: string, refreshTokenHash: string, previousHash: string): DomainEvent => ({
  type: 'ConnectionRefreshed',
  data: { id, refreshTokenHash, previousHash },
});
export const connectionRevoked = (id: string): DomainEvent => ({ type: 'ConnectionRevoked', data: { id, reason: 'user' } });
export const connectionUsed = (id: string, at: string): DomainEvent => ({ type: 'ConnectionUsed', data: { id, at } });

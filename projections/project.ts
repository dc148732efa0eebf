import type { Actor, ConnectionEvent, KeyEvent, OAuthClientEvent, Recorded, SiteEvent } from '../domain/events.ts';
import { fullPath } from '../domain/paths.ts';
import { applyConnectionEvent } from '../domain/connection/state.ts';
import { evolveSite, initialSiteState, type SiteState } from '../domain/site/state.ts';
import type { ConnectionDoc, ConnectionUseDoc, DocKind, KeyDoc, KeyUseDoc, OAuthClientDoc, SiteDoc, StreamRecord } from './documents.ts';

/** Which document family a stream feeds, from its name (see domain/streams.ts). */
export function kindOfStream(stream: string): DocKind | undefined {
  const prefix = stream.slice(0, stream.indexOf('-'));
  switch (prefix) {
    case 'site':
    case 'key':
    case 'keyuse':
    case 'connection':
    case 'connectionuse':
    case 'oauthclient':
    case 'sequence':
    case 'webhook':
      return prefix;
    default:
      return undefined;
  }
}

/**
 * Applies a batch of events to the stream records they touch. Pure: the adapter loads
 * the records of the batch's streams, calls this, then writes the changed records and
 * the checkpoint in one transaction. An event at or below a record's revision was
 * already applied and is skipped, so delivering an event twice changes nothing.
 */
export function projectBatch(
  events: readonly Recorded[],
  loaded: ReadonlyMap<string, StreamRecord>,
): Map<string, StreamRecord> {
  const changed = new Map<string, StreamRecord>();
  for (const event of events) {
    const current = changed.get(event.stream) ?? loaded.get(event.stream);
    const next = projectRecord(current, event);
    if (next !== undefined && next !== current) changed.set(event.stream, next);
  }
  return changed;
}

/**
 * One event folded into its stream's record (`current`, undefined: none yet): the new
 * record, `current` itself when the event was already applied, or undefined for a stream
 * no document family is fed from. Pure; `projectBatch` over many events.
 */
export function projectRecord(current: StreamRecord | undefined, event: Recorded): StreamRecord | undefined {
  const kind = current?.kind ?? kindOfStream(event.stream);
  if (!kind) return undefined;
  if (current && event.revision <= current.revision) return current;
  return { stream: current?.stream ?? event.stream, kind, revision: event.revision, doc: projectDoc(kind, current?.doc ?? null, event) };
}

function projectDoc(kind: DocKind, doc: StreamRecord['doc'], event: Recorded): StreamRecord['doc'] {
  switch (kind) {
    case 'site':
      return projectSite(doc as SiteDoc | null, event as Recorded<SiteEvent>);
    case 'key':
      return projectKey(doc as KeyDoc | null, event as Recorded<KeyEvent>);
    case 'keyuse':
      return projectKeyUse(doc as KeyUseDoc | null, event as Recorded<KeyEvent>);
    case 'connection':
      return projectConnection(doc as ConnectionDoc | null, event as Recorded<ConnectionEvent>);
    case 'connectionuse':
      return projectConnectionUse(doc as ConnectionUseDoc | null, event as Recorded<ConnectionEvent>);
    case 'oauthclient':
      return projectClient(doc as OAuthClientDoc | null, event as Recorded<OAuthClientEvent>);
    case 'sequence':
    case 'webhook':
      return null;
    default: {
      const never: never = kind;
      return never;
    }
  }
}

/**
 * A site's document: the write side's own fold (`evolveSite`, so the two can never disagree
 * about archives, rollbacks or the trash) and the fields only a reader needs: the stream
 * and the full path. A site the lifecycle says is absent or purged has no document.
 */
export function projectSite(doc: SiteDoc | null, event: Recorded<SiteEvent>): SiteDoc | null {
  const before = doc ? siteState(doc) : initialSiteState;
  const after = evolveSite(before, event);
  // Every change that moves `updatedAt` also says who made it (the cards and the table show
  // both): evolve applied the event and the site's time is now this event's.
  const updatedBy = after !== before && after.updatedAt === event.meta.at ? sameOr(doc?.updatedBy, event.meta.actor) : doc?.updatedBy;
  return siteDoc(event.stream, after, updatedBy, doc);
}

/**
 * `actor`, or `was` when it names the same actor. A batch holds each site's document until
 * its next event, usually long enough for V8 to move it to the old generation: keeping the
 * values that did not change (the actor, the stream name, the path) keeps a replay's garbage
 * there, and so its heap and its minor collections' copying, smaller.
 */
function sameOr(was: Actor | undefined, actor: Actor): Actor {
  if (was === undefined || was.kind !== actor.kind || was.name !== actor.name) return actor;
  const a = was as { id?: unknown; user?: unknown };
  const b = actor as { id?: unknown; user?: unknown };
  return a.id === b.id && a.user === b.user ? was : actor;
}

function siteState(doc: SiteDoc): SiteState {
  const state: { -readonly [K in keyof SiteState]: SiteState[K] } = {
    status: doc.status,
    siteId: doc.siteId,
    address: { group: doc.group, slug: doc.slug },
    meta: doc.meta,
    live: doc.live,
    archived: doc.archived,
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
    deletedAt: doc.deletedAt,
    lastNumber: doc.lastNumber,
    previews: doc.previews,
  };
  if (doc.domains !== undefined) state.domains = doc.domains;
  return state;
}

// Built field by field, optional ones assigned only when present: replays build one per event.
function siteDoc(stream: string, state: SiteState, updatedBy: Actor | undefined, was: SiteDoc | null): SiteDoc | null {
  if (state.status !== 'live' && state.status !== 'quarantined') return null;
  if (!state.address || !state.live) return null; // a stream that never published
  const { group, slug } = state.address;
  const same = was !== null && was.group === group && was.slug === slug;
  const doc: { -readonly [K in keyof SiteDoc]: SiteDoc[K] } = {
    stream: was?.stream ?? stream,
    siteId: state.siteId!,
    group: same ? was.group : group,
    slug: same ? was.slug : slug,
    path: same ? was.path : fullPath({ group, slug }),
    status: state.status,
    meta: state.meta!,
    live: state.live,
    archived: state.archived,
    createdAt: state.createdAt ?? state.updatedAt!,
    updatedAt: state.updatedAt!,
  };
  if (updatedBy !== undefined) doc.updatedBy = updatedBy;
  if (state.deletedAt !== undefined) doc.deletedAt = state.deletedAt;
  if (state.lastNumber !== undefined) doc.lastNumber = state.lastNumber;
  if (state.previews !== undefined) doc.previews = state.previews;
  if (state.domains !== undefined) doc.domains = state.domains;
  return doc;
}

export function projectKey(doc: KeyDoc | null, event: Recorded<KeyEvent>): KeyDoc | null {
  switch (event.type) {
    case 'KeyIssued': {
      const d = event.data;
      return {
        id: d.id,
        name: d.name,
        admin: d.admin,
        grants: d.grants,
        tokenHash: d.tokenHash,
        createdAt: event.meta.at,
        ...(d.expiresAt ? { expiresAt: d.expiresAt } : {}),
        revoked: false,
        createdBy: event.meta.actor,
      };
    }
    case 'KeyRevoked':
      return doc && { ...doc, revoked: true, revokedAt: event.meta.at, revokedBy: event.meta.actor };
    case 'KeyUsed':
      return doc && (!doc.lastUsedAt || doc.lastUsedAt < event.data.at) ? { ...doc, lastUsedAt: event.data.at } : doc;
    default: {
      const never: never = event;
      return never;
    }
  }
}

/** A key's usage stream: the latest use (uses recorded by several instances may arrive out of order). */
export function projectKeyUse(doc: KeyUseDoc | null, event: Recorded<KeyEvent>): KeyUseDoc | null {
  if (event.type !== 'KeyUsed') return doc; // the stream holds nothing else
  if (doc && doc.lastUsedAt >= event.data.at) return doc;
  return { id: event.data.id, lastUsedAt: event.data.at };
}

/** A connection's usage stream: the latest use (uses recorded by several instances may arrive out of order). */
export function projectConnectionUse(doc: ConnectionUseDoc | null, event: Recorded<ConnectionEvent>): ConnectionUseDoc | null {
  if (event.type !== 'ConnectionUsed') return doc; // the stream holds nothing else
  if (doc && doc.lastUsedAt >= event.data.at) return doc;
  return { id: event.data.id, lastUsedAt: event.data.at };
}

export function projectConnection(doc: ConnectionDoc | null, event: Recorded<ConnectionEvent>): ConnectionDoc | null {
  // The token rules are the write side's own (domain/connection/state.ts); the document adds who, when and why.
  const next = applyConnectionEvent(doc, event);
  if (!next) return null;
  switch (event.type) {
    case 'ConnectionGranted': {
      const d = event.data;
      return { ...next, clientName: d.clientName, user: d.user, grants: d.grants, createdAt: event.meta.at };
    }
    case 'ConnectionRefreshed':
      return { ...(next as ConnectionDoc), lastRefreshedAt: event.meta.at };
    case 'ConnectionRevoked':
      return { ...(next as ConnectionDoc), revokedAt: event.meta.at, revokedReason: event.data.reason };
    case 'ConnectionUsed': {
      // Logs from before usage streams (connectionuse-<id>) hold uses here too.
      // Never backwards: uses recorded by several instances may arrive out of order.
      const d = next as ConnectionDoc;
      return d.lastUsedAt && d.lastUsedAt >= event.data.at ? d : { ...d, lastUsedAt: event.data.at };
    }
    case 'ConnectionCodeRedeemed':
      return next as ConnectionDoc;
    default: {
      const never: never = event;
      return never;
    }
  }
}

export function projectClient(doc: OAuthClientDoc | null, event: Recorded<OAuthClientEvent>): OAuthClientDoc | null {
  switch (event.type) {
    case 'ClientRegistered': {
      const d = event.data;
      return {
        clientId: d.clientId,
        name: d.name,
        redirectUris: d.redirectUris,
        registeredAt: d.registeredAt,
        ...(d.clientUri !== undefined ? { clientUri: d.clientUri } : {}),
        ...(d.unusedExpiresAt !== undefined ? { unusedExpiresAt: d.unusedExpiresAt } : {}),
      };
    }
    case 'ClientUsed': {
      if (!doc || doc.usedAt) return doc;
      const { unusedExpiresAt: _lifted, ...rest } = doc;
      return { ...rest, usedAt: event.meta.at };
    }
    case 'ClientRegistrationExpired':
      // The registration is over: nothing of it stays in the read model (the event log keeps the history).
      return null;
    default: {
      const never: never = event;
      return never;
    }
  }
}

import type { ConnectionEvent, KeyEvent, OAuthClientEvent, Recorded, SiteEvent } from '../domain/events.ts';
import { fullPath } from '../domain/paths.ts';
import { applyConnectionEvent } from '../domain/connection/state.ts';
import type { ConnectionDoc, DocKind, KeyDoc, KeyUseDoc, OAuthClientDoc, SiteDoc, StreamRecord } from './documents.ts';

/** Which document family a stream feeds, from its name (see domain/streams.ts). */
export function kindOfStream(stream: string): DocKind | undefined {
  const prefix = stream.slice(0, stream.indexOf('-'));
  switch (prefix) {
    case 'site':
    case 'key':
    case 'keyuse':
    case 'connection':
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
    const kind = kindOfStream(event.stream);
    if (!kind) continue;
    const current = changed.get(event.stream) ?? loaded.get(event.stream) ?? { stream: event.stream, kind, revision: -1, doc: null };
    if (event.revision <= current.revision) continue;
    changed.set(event.stream, { stream: event.stream, kind, revision: event.revision, doc: projectDoc(kind, current.doc, event) });
  }
  return changed;
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

export function projectSite(doc: SiteDoc | null, event: Recorded<SiteEvent>): SiteDoc | null {
  const at = event.meta.at;
  // Every change that moves `updatedAt` also says who made it (the cards and the table show both).
  const by = event.meta.actor;
  switch (event.type) {
    case 'SitePublished': {
      const d = event.data;
      const base = d.created || !doc ? null : doc;
      return {
        stream: event.stream,
        siteId: d.siteId,
        group: d.group,
        slug: d.slug,
        path: fullPath(d),
        status: 'live',
        meta: d.meta,
        live: d.revision,
        archived: base?.archived ?? [],
        createdAt: base?.createdAt ?? at,
        updatedAt: at,
        updatedBy: by,
      };
    }
    case 'SiteArchived': {
      // The live pointer stays until SitePublished replaces it, so a reader never sees a site without content.
      if (!doc || doc.live.id !== event.data.revisionId) return doc;
      return { ...doc, archived: [doc.live, ...doc.archived.filter((r) => r.id !== doc.live.id)] };
    }
    case 'RevisionDropped':
      return doc && { ...doc, archived: doc.archived.filter((r) => r.id !== event.data.revisionId) };
    case 'SiteRolledBack': {
      if (!doc) return doc;
      const chosen = doc.archived.find((r) => r.id === event.data.revisionId);
      if (!chosen) return doc;
      const rest = doc.archived.filter((r) => r.id !== chosen.id);
      return { ...doc, live: chosen, archived: [doc.live, ...rest], updatedAt: at, updatedBy: by };
    }
    case 'SiteQuarantined':
      return doc && { ...doc, status: 'quarantined', deletedAt: at, updatedAt: at, updatedBy: by };
    case 'SiteRestored': {
      if (!doc) return doc;
      const { deletedAt: _gone, ...rest } = doc;
      return { ...rest, status: 'live', updatedAt: at, updatedBy: by };
    }
    case 'SitePurged':
      return null;
    case 'SitePatched':
      return doc && { ...doc, meta: event.data.meta, updatedAt: at, updatedBy: by };
    default: {
      const never: never = event;
      return never;
    }
  }
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

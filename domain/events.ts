import type { ConnectionEvent } from './connection/events.ts';
import type { DomainClaimEvent } from './custom-domain/events.ts';
import type { KeyEvent } from './key/events.ts';
import type { OAuthClientEvent } from './oauth-client/events.ts';
import type { SiteEvent } from './site/events.ts';
import type { WebhookEvent } from './webhook/events.ts';

/**
 * Every event of the log: the union of the aggregates' own event types (each defined in
 * its aggregate's folder), for the event store, the projections and the audit history.
 */
export type { ConnectionEvent } from './connection/events.ts';
export type { DomainClaimEvent } from './custom-domain/events.ts';
export type { KeyEvent } from './key/events.ts';
export type { OAuthClientEvent } from './oauth-client/events.ts';
export type { RevisionInfo, SiteEvent, SiteMeta } from './site/events.ts';
export type { WebhookEvent } from './webhook/events.ts';

/** Who did it: stored in every event's metadata, this is the audit trail. */
export type Actor =
  | { readonly kind: 'key'; readonly id: number; readonly name: string }
  | { readonly kind: 'user'; readonly name: string }
  | { readonly kind: 'connection'; readonly id: string; readonly name: string; readonly user?: string }
  | { readonly kind: 'system'; readonly name: string };

export type EventMeta = { readonly actor: Actor; readonly at: string };

/** Hands out a small integer id: the id is the stream revision of this event + 1. */
export type SequenceEvent = { readonly type: 'IdAllocated'; readonly data: { readonly id: number } };

export type DomainEvent = SiteEvent | KeyEvent | SequenceEvent | ConnectionEvent | OAuthClientEvent | WebhookEvent | DomainClaimEvent;
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

import type { Actor, Recorded } from '../domain/events.ts';
import { positionKey } from './positions.ts';
import type { ProjectionBatch } from './read-model.ts';

/** One entry of the service-wide audit log (spec §16 `Activity`): one event of the log. */
export type Activity = {
  /** The event's position in the log. */
  readonly id: string;
  readonly type: string;
  readonly at: string;
  readonly actor: Actor;
  /** The site's path, for events of a site stream. */
  readonly site?: string;
  /** The event's data, without any secret or hash of one. */
  readonly data: Readonly<Record<string, unknown>>;
};

/** An entry as stored: the entry and the index fields derived from it. */
export type ActivityRow = {
  readonly entry: Activity;
  /** `positionKey(id)`: the log's order as text. */
  readonly key: string;
  /**
   * The latest `at` of this and every earlier entry: never decreases along the log, so a
   * time range is one range of keys. Equal to `at` unless an instance's clock ran behind
   * one that wrote earlier; `since`/`until` compare this time.
   */
  readonly atKey: string;
  /** `key:<id>`, `connection:<id>`, `user:<name>` or `system:<name>`. */
  readonly actorKey: string;
  /** The person behind the change: a user's name, or the user who approved the connection. */
  readonly person?: string;
  /** Every grant target covering the site (its first label, first two, …, its full path), for the `site` filter. */
  readonly scopes: readonly string[];
};

/** Who did it, as the `actor` query names them. */
export type ActorFilter = { readonly by: 'actor'; readonly key: string } | { readonly by: 'person'; readonly name: string };

/** `GET /api/events` after validation: every filter optional, all of them combined with AND. */
export type ActivityFilter = {
  /** Log event types (any of them). */
  readonly types?: readonly string[];
  readonly actor?: ActorFilter;
  /** A grant target: "" is everything; a site path or group covers itself and its subtree. */
  readonly site?: string;
  /** RFC 3339 times normalised to ISO-8601 UTC, inclusive. */
  readonly since?: string;
  readonly until?: string;
};

/** One page: `order` desc is newest first (the API's pages), asc oldest first (the export). */
export type ActivityPage = {
  readonly order: 'desc' | 'asc';
  /** Exclusive: a position key; the page starts after it in `order`. */
  readonly after?: string;
  readonly limit: number;
};

/**
 * The activity projection's store: every event of the log as an `Activity`, with indexes
 * for each filter, so a filtered page is a few index range reads at any log size.
 * Fed by the projector like the read model (its own checkpoint, see host/projector.ts).
 * Adapters: SQLite (embedded) and MongoDB; both pass test/contracts/activity.contract.ts.
 */
export interface ActivityStore {
  /** A batch from this store's own checkpoint; `add` may store rows at once (they are idempotent by position), `commit` moves the checkpoint. */
  beginBatch(): Promise<ProjectionBatch>;
  checkpoint(): Promise<string | undefined>;
  /** Up to `page.limit` entries matching `filter`, in `page.order`, after `page.after`. */
  query(filter: ActivityFilter, page: ActivityPage): Promise<Activity[]>;
  close(): Promise<void>;
}

/** Fields never shown: secrets and the hashes of tokens and codes (the log keeps them; nobody reads them here). */
const SECRET_FIELDS = new Set(['secret', 'tokenHash', 'refreshTokenHash', 'accessTokenHash', 'previousHash', 'code', 'hash', 'challenge']);

function redact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redact);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (!SECRET_FIELDS.has(k)) out[k] = redact(v);
  return out;
}

/** The site path a stream belongs to (`site-docs.app` → `docs/app`); labels never hold a dot. */
export function siteOfStream(stream: string): string | undefined {
  return stream.startsWith('site-') ? stream.slice('site-'.length).replaceAll('.', '/') : undefined;
}

/** The targets covering a site path: `a/b/c` → `a`, `a/b`, `a/b/c` (grant semantics, spec §2). */
export function scopesOf(path: string): string[] {
  const labels = path.split('/');
  return labels.map((_, i) => labels.slice(0, i + 1).join('/'));
}

export function actorKey(actor: Actor): string {
  switch (actor.kind) {
    case 'key':
      return `key:${actor.id}`;
    case 'connection':
      return `connection:${actor.id}`;
    case 'user':
      return `user:${actor.name}`;
    case 'system':
      return `system:${actor.name}`;
    default: {
      const never: never = actor;
      return never;
    }
  }
}

/** The `actor` query: `key:<id>`, `connection:<id>`, `system:<name>`, else a person's name. */
export function parseActorFilter(text: string): ActorFilter {
  return /^(?:key|connection|system|user):./.test(text) ? { by: 'actor', key: text } : { by: 'person', name: text };
}

const person = (actor: Actor): string | undefined => (actor.kind === 'user' ? actor.name : actor.kind === 'connection' ? actor.user : undefined);

/**
 * Events that are bookkeeping, not something anyone did: id sequences, and custom domain
 * claims (the site's DomainAttached / DomainDetached tell what happened).
 */
const isBookkeeping = (e: Recorded) => e.type === 'IdAllocated' || e.type === 'DomainClaimed' || e.type === 'DomainReleased';

/**
 * The rows of a page of the log (pure). `lastAtKey` is the `atKey` of the entry before
 * the first event (undefined at the start of the log); the result's `lastAtKey` goes on.
 */
export function activityRows(events: readonly Recorded[], lastAtKey: string | undefined): { rows: ActivityRow[]; lastAtKey: string | undefined } {
  const rows: ActivityRow[] = [];
  let running = lastAtKey;
  for (const e of events) {
    if (isBookkeeping(e)) continue;
    const at = e.meta.at;
    running = running === undefined || at > running ? at : running;
    const site = siteOfStream(e.stream);
    const who = person(e.meta.actor);
    rows.push({
      entry: { id: e.position, type: e.type, at, actor: e.meta.actor, ...(site !== undefined ? { site } : {}), data: redact(e.data) as Record<string, unknown> },
      key: positionKey(e.position),
      atKey: running,
      actorKey: actorKey(e.meta.actor),
      ...(who !== undefined ? { person: who } : {}),
      scopes: site !== undefined ? scopesOf(site) : [],
    });
  }
  return { rows, lastAtKey: running };
}

import { randomUUID } from 'node:crypto';
import { jsonEvent, type EventData, type JSONType, type Position, type RecordedEvent } from '@eventstore/db-client';
import type { EventMeta, Recorded } from '../../domain/events.ts';
import type { EventToAppend } from '../../domain/ports.ts';
import { encodePosition } from './esdb-position.ts';

/** What servers report for "no position" (unsigned 64-bit -1). */
const NO_POSITION = 2n ** 64n - 1n;

/** Stored metadata: the domain's `EventMeta` plus the id shared by the events of one append. */
type StoredMeta = EventMeta & { readonly appendId?: string };

export type Stored = { recorded: Recorded; commit: string };

/** Ours = JSON events outside the `$` system streams and types (links, stats, metadata). */
export function toStored(event: RecordedEvent, fallback: Position | undefined): Stored | undefined {
  if (event.type.startsWith('$') || event.streamId.startsWith('$') || !event.isJson) return undefined;
  const { appendId, ...meta } = (event.metadata ?? {}) as StoredMeta;
  // Stream reads on servers before 22.6 carry no position (or 2^64-1): fall back to what the read gave.
  const known = event.position && event.position.commit !== NO_POSITION ? event.position : undefined;
  const position = known ?? fallback ?? { commit: 0n, prepare: 0n };
  return {
    recorded: {
      type: event.type,
      data: event.data,
      stream: event.streamId,
      revision: Number(event.revision),
      position: encodePosition(position),
      meta: meta as EventMeta,
    } as Recorded,
    // Events of one append share its id (and, in EventStoreDB, its commit position).
    commit: appendId ?? String(position.commit),
  };
}

/**
 * Domain events as EventStoreDB JSON events: data as is, metadata = `EventMeta` plus one
 * `appendId` shared by the whole append (so page cuts never rely on server internals).
 */
export function toEventData(events: readonly EventToAppend[]): EventData[] {
  const appendId = randomUUID();
  return events.map((e) =>
    jsonEvent({ type: e.type, data: e.data as unknown as JSONType, metadata: { ...e.meta, appendId } as unknown as JSONType }),
  );
}

/** The client's `CommandError`s carry a `type` (`ErrorType`); anything else has none. */
export const errorType = (err: unknown): unknown => (err as { type?: unknown } | null)?.type;

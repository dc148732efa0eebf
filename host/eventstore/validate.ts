import type { EventToAppend, ExpectedRevision } from '../../domain/ports.ts';

/**
 * Argument checks shared by the event-store adapters. A failure here is a programming
 * error in a command handler, never user input, so it is a plain `TypeError`/`RangeError`.
 */
export function checkAppend(stream: string, events: readonly EventToAppend[], expected: ExpectedRevision): void {
  if (typeof stream !== 'string' || stream.length === 0) throw new TypeError('stream name must be a non-empty string');
  // `$`-streams belong to EventStoreDB's system; keeping them out keeps the adapters interchangeable.
  if (stream.startsWith('$')) throw new TypeError(`stream name must not start with "$": ${stream}`);
  if (!Number.isSafeInteger(expected) || expected < -1) throw new RangeError(`expected revision must be an integer >= -1, got ${expected}`);
  for (const event of events) {
    if (typeof event.type !== 'string' || event.type.length === 0 || event.type.startsWith('$')) {
      throw new TypeError(`invalid event type: ${JSON.stringify(event.type)}`);
    }
    if (event.meta === undefined || event.meta === null) throw new TypeError(`event ${event.type} has no metadata`);
  }
}

export function checkLimit(limit: number): void {
  if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError(`readAll limit must be a positive integer, got ${limit}`);
}

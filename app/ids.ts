import { StreamConflictError } from '../domain/errors.ts';
import type { Actor } from '../domain/events.ts';
import type { EventStore } from '../domain/ports.ts';
import { sequenceStream } from '../domain/streams.ts';

/**
 * Allocates the next small integer id of a kind by appending to its sequence stream
 * with the expected revision: concurrent allocators (even in other processes) never
 * get the same id. An id whose command then fails is simply never used.
 */
export async function allocateId(events: EventStore, kind: 'site' | 'key', actor: Actor, now: Date): Promise<number> {
  const stream = sequenceStream(kind);
  for (let attempt = 0; attempt < 50; attempt++) {
    const revision = await events.streamRevision(stream);
    const id = revision + 2; // revision -1 → id 1
    try {
      await events.append(stream, [{ type: 'IdAllocated', data: { id }, meta: { actor, at: now.toISOString() } }], revision);
      return id;
    } catch (err) {
      if (!(err instanceof StreamConflictError)) throw err;
    }
  }
  throw new Error(`could not allocate a ${kind} id: too much contention`);
}

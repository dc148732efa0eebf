import { StreamConflictError } from '../domain/errors.ts';
import type { EventToAppend } from '../domain/ports.ts';
import type { AppDeps } from './deps.ts';

/**
 * Appends a use (`KeyUsed`, `ConnectionUsed`) to its usage stream and waits for the read
 * model. Nothing is read from the log: the expected revision comes from the store without
 * reading the stream. Uses recorded at the same moment by other instances may win the race;
 * this one is then appended after theirs (a few tries: the races are between instances, one
 * use a minute each).
 */
export async function appendUse(deps: Pick<AppDeps, 'events' | 'waitForProjection'>, stream: string, events: readonly EventToAppend[]): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      const { revision } = await deps.events.append(stream, events, await deps.events.streamRevision(stream));
      await deps.waitForProjection(stream, revision);
      return;
    } catch (err) {
      if (err instanceof StreamConflictError && attempt < 4) continue;
      throw err;
    }
  }
}

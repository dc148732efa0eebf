import { ConflictError, StreamConflictError } from '../errors.ts';
import type { Actor, DomainEvent, Recorded } from '../events.ts';
import type { CommandDeps } from './deps.ts';

export type Decision<S, R> = { readonly events: readonly DomainEvent[]; readonly result: (state: S) => R };

/**
 * The command cycle: read the stream, fold it, decide, append with the expected
 * revision. A lost race is retried once from a fresh read, then answered 409.
 * Replies only after the projections caught up with the append (read-your-writes).
 */
export async function runCommand<S, R>(
  deps: Pick<CommandDeps, 'events' | 'waitForProjection' | 'now'>,
  stream: string,
  actor: Actor,
  fold: (events: readonly Recorded[]) => S,
  decide: (state: S) => Promise<Decision<S, R>> | Decision<S, R>,
  evolve: (state: S, events: readonly Recorded[]) => S,
): Promise<{ result: R; appended: number }> {
  for (let attempt = 0; ; attempt++) {
    const { events: history, revision } = await deps.events.readStream(stream);
    const state = fold(history);
    const decision = await decide(state);
    if (decision.events.length === 0) return { result: decision.result(state), appended: 0 };
    const at = deps.now().toISOString();
    const toAppend = decision.events.map((e) => ({ ...e, meta: { actor, at } }));
    try {
      const { revision: last, position } = await deps.events.append(stream, toAppend, revision);
      await deps.waitForProjection(stream, last);
      const recorded = toAppend.map((e, i) => ({ ...e, stream, revision: revision + 1 + i, position })) as Recorded[];
      return { result: decision.result(evolve(state, recorded)), appended: toAppend.length };
    } catch (err) {
      if (err instanceof StreamConflictError) {
        if (attempt === 0) continue;
        throw new ConflictError('another change to the same resource won the race; try again');
      }
      throw err;
    }
  }
}

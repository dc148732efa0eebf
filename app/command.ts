import { ConflictError, StreamConflictError } from '../domain/errors.ts';
import type { Actor, DomainEvent, Recorded } from '../domain/events.ts';
import type { EventToAppend } from '../domain/ports.ts';
import type { CommandDeps } from './deps.ts';

/** An aggregate as the command cycle sees it: where its events live and how they fold. */
export type Aggregate<Id, S, E extends DomainEvent> = {
  readonly stream: (id: Id) => string;
  readonly initial: S;
  readonly evolve: (state: S, event: Recorded<E>) => S;
};

/** What a handled command leaves: the state after it, and the events it appended (none: nothing changed). */
export type Handled<S, E extends DomainEvent> = { readonly state: S; readonly events: readonly Recorded<E>[] };

/** Decides a command on the freshly folded state; may be asked twice when a race is lost. */
export type Decide<S, E extends DomainEvent> = (state: S) => readonly E[] | Promise<readonly E[]>;

export type CommandHandler<Id, S, E extends DomainEvent> = {
  handle(id: Id, actor: Actor, decide: Decide<S, E>): Promise<Handled<S, E>>;
};

export type CycleDeps = Pick<CommandDeps, 'events' | 'waitForProjection' | 'now'>;

/**
 * Binds an aggregate once; the result binds it to the ports. `handle` is the command cycle:
 * read the stream, fold it, decide, append with the expected revision. A lost race is
 * retried once from a fresh read, then answered 409. Replies only after the projections
 * caught up with the append (read-your-writes).
 */
export function aggregate<Id, S, E extends DomainEvent>(type: Aggregate<Id, S, E>): (deps: CycleDeps) => CommandHandler<Id, S, E> {
  // A stream holds only its aggregate's events; the store hands them back untyped.
  const own = (events: readonly Recorded[]) => events as unknown as readonly Recorded<E>[];
  const fold = (state: S, events: readonly Recorded<E>[]): S => events.reduce(type.evolve, state);
  return (deps) => ({
    async handle(id, actor, decide) {
      const stream = type.stream(id);
      for (let attempt = 0; ; attempt++) {
        const { events: history, revision } = await deps.events.readStream(stream);
        const state = fold(type.initial, own(history));
        const decided = await decide(state);
        if (decided.length === 0) return { state, events: [] };
        const at = deps.now().toISOString();
        const toAppend: EventToAppend[] = decided.map((e) => ({ ...(e as DomainEvent), meta: { actor, at } }));
        try {
          const { revision: last, position } = await deps.events.append(stream, toAppend, revision);
          await deps.waitForProjection(stream, last);
          const recorded = own(toAppend.map((e, i): Recorded => ({ ...e, stream, revision: revision + 1 + i, position })));
          return { state: fold(state, recorded), events: recorded };
        } catch (err) {
          if (err instanceof StreamConflictError) {
            if (attempt === 0) continue;
            throw new ConflictError('another change to the same resource won the race; try again');
          }
          throw err;
        }
      }
    },
  });
}

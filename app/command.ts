import type { Decider } from '../domain/decider.ts';
import { ConflictError, StreamConflictError } from '../domain/errors.ts';
import type { Actor, DomainEvent, Recorded } from '../domain/events.ts';
import type { EventToAppend } from '../domain/ports.ts';
import type { AppDeps } from './deps.ts';

/** An aggregate as the command cycle sees it: where its events live, and its decider. */
export type Aggregate<Id, C, S, E extends DomainEvent> = {
  readonly stream: (id: Id) => string;
  readonly decider: Decider<C, S, E>;
  /**
   * False for an aggregate the read model has no document of (custom domain claims: only the
   * write side reads them, from their stream): its commands do not wait for the projector.
   */
  readonly projected?: boolean;
};

/**
 * What a handled command leaves: the state it was decided on (`before`), the state after
 * it, and the events it appended (none: nothing changed).
 */
export type Handled<S, E extends DomainEvent> = { readonly before: S; readonly state: S; readonly events: readonly Recorded<E>[] };

/**
 * The command, or how to make it from the freshly folded state: whatever needs a store or
 * the clock (an id from a sequence, change counts from manifests, tokens) is done here, so
 * the decider's `decide` stays pure. Asked again when a race is lost. `revision` is the
 * stream's revision that state was folded at: the events decided are appended with it
 * expected (a custom domain's claim names it, app/domains/claims.ts).
 */
export type Prepare<C, S> = C | ((state: S, revision: number) => C | Promise<C>);

export type CommandHandler<Id, C, S, E extends DomainEvent> = {
  handle(id: Id, actor: Actor, command: Prepare<C, S>): Promise<Handled<S, E>>;
};

export type CycleDeps = Pick<AppDeps, 'events' | 'waitForProjection' | 'now'>;

/**
 * Binds an aggregate once; the result binds it to the ports. `handle` is the command cycle:
 * read the stream, fold it, prepare the command, decide, append with the expected revision.
 * A lost race is retried once from a fresh read, then answered 409. Replies only after the
 * projections caught up with the append (read-your-writes).
 */
export function aggregate<Id, C, S, E extends DomainEvent>(type: Aggregate<Id, C, S, E>): (deps: CycleDeps) => CommandHandler<Id, C, S, E> {
  const { decider } = type;
  // A stream holds only its aggregate's events; the store hands them back untyped.
  const own = (events: readonly Recorded[]) => events as unknown as readonly Recorded<E>[];
  const fold = (state: S, events: readonly Recorded<E>[]): S => events.reduce(decider.evolve, state);
  return (deps) => ({
    async handle(id, actor, prepare) {
      const stream = type.stream(id);
      for (let attempt = 0; ; attempt++) {
        const { events: history, revision } = await deps.events.readStream(stream);
        const state = fold(decider.initialState, own(history));
        const command = typeof prepare === 'function' ? await (prepare as (state: S, revision: number) => C | Promise<C>)(state, revision) : prepare;
        const decided = decider.decide(command, state);
        if (decided.length === 0) return { before: state, state, events: [] };
        const at = deps.now().toISOString();
        const toAppend: EventToAppend[] = decided.map((e) => ({ ...(e as DomainEvent), meta: { actor, at } }));
        try {
          const { revision: last, position } = await deps.events.append(stream, toAppend, revision);
          if (type.projected !== false) await deps.waitForProjection(stream, last);
          const recorded = own(toAppend.map((e, i): Recorded => ({ ...e, stream, revision: revision + 1 + i, position })));
          return { before: state, state: fold(state, recorded), events: recorded };
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

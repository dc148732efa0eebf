import type { Actor } from './events.ts';

/**
 * An aggregate's rules as one value, the shape of emmett's `Decider`: `decide` answers a
 * command on the current state with the events it causes (or throws a typed domain error),
 * `evolve` folds one recorded event into the state, and `initialState` is the state of a
 * stream without events. All three are pure: time, ids, hashes and anything read from a
 * store come in with the command, so the same command on the same state always decides the
 * same, and a decider spec needs nothing but events and a command.
 */
export type Decider<Command, State, Event> = {
  readonly decide: (command: Command, state: State) => readonly Event[];
  readonly evolve: (state: State, event: Stamped<Event>) => State;
  readonly initialState: State;
};

/**
 * An event as `evolve` sees it: with the time it was recorded and, as recorded events always
 * have, who caused it (a `Recorded` event is one; a decider spec may leave the actor out).
 */
export type Stamped<Event> = Event & { readonly meta: { readonly at: string; readonly actor?: Actor } };

/** The state of a stream: its events folded from the initial state. */
export function fold<C, S, E>(decider: Decider<C, S, E>, events: readonly Stamped<E>[], from: S = decider.initialState): S {
  return events.reduce(decider.evolve, from);
}

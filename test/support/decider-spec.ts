import { expect } from 'vitest';
import { fold, type Decider, type Stamped } from '../../domain/decider.ts';

/**
 * Decider specs in the shape emmett's `DeciderSpecification` reads: given the events of a
 * stream, when a command, then exactly these events, or this error. Nothing but the decider
 * runs: no store, no clock.
 */
export function deciderSpec<C, S, E>(decider: Decider<C, S, E>, at = '2026-01-01T00:00:00.000Z') {
  const stamp = (events: readonly E[], from = 0): Stamped<E>[] =>
    events.map((e, i) => ({ ...e, meta: { at: new Date(Date.parse(at) + (from + i) * 1000).toISOString() } }) as Stamped<E>);
  return {
    /** The state the events fold into. */
    state: (...events: E[]): S => fold(decider, stamp(events)),
    given: (...events: E[]) => ({
      when: (command: C) => {
        const state = fold(decider, stamp(events));
        return {
          then: (expected: readonly E[]) => expect(decider.decide(command, state)).toEqual(expected),
          thenThrows: (error: Error | (new (...args: never[]) => Error) | RegExp) => expect(() => decider.decide(command, state)).toThrow(error),
          /** The decided events, for scenarios that check them piece by piece. */
          events: () => decider.decide(command, state),
        };
      },
    }),
  };
}

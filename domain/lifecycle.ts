import { createMachine } from 'xstate';

/**
 * The site lifecycle as an xstate v5 machine, used only as a pure transition
 * table: state is always rebuilt from events, so nothing runs as an actor and no
 * snapshot is persisted. `decide` asks `allows()` before emitting events.
 */
export const siteLifecycle = createMachine({
  id: 'site',
  initial: 'absent',
  states: {
    absent: { on: { PUBLISH: 'live' } },
    live: {
      on: { PUBLISH: 'live', PATCH: 'live', ROLLBACK: 'live', UNPUBLISH: 'quarantined', READ: 'live' },
    },
    // Publishing to a quarantined path revives it with the new content.
    quarantined: { on: { PUBLISH: 'live', RESTORE: 'live', PURGE: 'purged' } },
    // A purge ends one incarnation; a later publish starts the next in the same stream.
    purged: { on: { PUBLISH: 'live' } },
  },
});

export type LifecycleStatus = 'absent' | 'live' | 'quarantined' | 'purged';
export type LifecycleCommand = 'PUBLISH' | 'PATCH' | 'ROLLBACK' | 'UNPUBLISH' | 'RESTORE' | 'PURGE' | 'READ';

export function allows(status: LifecycleStatus, command: LifecycleCommand): boolean {
  return siteLifecycle.resolveState({ value: status }).can({ type: command });
}

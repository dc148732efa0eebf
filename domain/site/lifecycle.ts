import { setup, type EventFrom, type StateValueFrom } from 'xstate';

/** What may be asked of a site; `decide` maps each `SiteCommand` to one of these. */
type LifecycleEvent =
  | { readonly type: 'PUBLISH' }
  | { readonly type: 'PATCH' }
  | { readonly type: 'ROLLBACK' }
  | { readonly type: 'UNPUBLISH' }
  | { readonly type: 'RESTORE' }
  | { readonly type: 'PURGE' }
  | { readonly type: 'READ' }
  /** Publish or remove a preview (spec §14): only beside a live site. */
  | { readonly type: 'PREVIEW' }
  | { readonly type: 'ATTACH_DOMAIN' }
  | { readonly type: 'DETACH_DOMAIN' };

/**
 * The site lifecycle as an xstate v5 machine, used only as a pure transition
 * table: state is always rebuilt from events, so nothing runs as an actor and no
 * snapshot is persisted. `decide` asks `allows()` before emitting events. Typed with
 * `setup`, so a transition on an unknown command does not compile, and the state and
 * command names below are derived from the machine rather than kept by hand.
 */
export const siteLifecycle = setup({
  types: { events: {} as LifecycleEvent, context: {} as Record<string, never> },
}).createMachine({
  id: 'site',
  initial: 'absent',
  context: {},
  states: {
    absent: { on: { PUBLISH: 'live' } },
    live: {
      on: { PUBLISH: 'live', PATCH: 'live', ROLLBACK: 'live', UNPUBLISH: 'quarantined', READ: 'live', PREVIEW: 'live', ATTACH_DOMAIN: 'live', DETACH_DOMAIN: 'live' },
    },
    // A publish never destroys what an admin put in the trash (spec §4): restore or purge first.
    // A custom domain can be detached from a site in the trash (it frees the name for another
    // site without bringing this one back), not attached to one (spec §15: it answers 404 there).
    quarantined: { on: { RESTORE: 'live', PURGE: 'purged', DETACH_DOMAIN: 'quarantined' } },
    // A purge ends one incarnation; a later publish starts the next in the same stream.
    purged: { on: { PUBLISH: 'live' } },
  },
});

/** `absent`, `live`, `quarantined`, `purged`: the machine's states. */
export type LifecycleStatus = StateValueFrom<typeof siteLifecycle>;
/** `PUBLISH`, `PATCH`, …: the machine's events. */
export type LifecycleCommand = EventFrom<typeof siteLifecycle>['type'];

export function allows(status: LifecycleStatus, command: LifecycleCommand): boolean {
  return siteLifecycle.resolveState({ value: status, context: {} }).can({ type: command });
}

/**
 * May the site's content be read (served, browsed, listed with its revisions)? The machine's
 * `READ`: only a live site answers; one in the trash, purged or never published is absent.
 */
export function readable(status: LifecycleStatus): boolean {
  return allows(status, 'READ');
}

/** May a publish go to this address? Not while the site is in the trash (spec §4). */
export function publishable(status: LifecycleStatus): boolean {
  return allows(status, 'PUBLISH');
}

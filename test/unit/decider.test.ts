/**
 * Decider specs: given the events of a site stream (folded by `siteDecider.evolve`), when a
 * `SiteCommand`, then `decideSite` returns exactly these events or throws this typed error.
 */
import { describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError, ValidationError } from '../../domain/errors.ts';
import type { Recorded, RevisionInfo, SiteEvent } from '../../domain/events.ts';
import type { SiteAddress } from '../../domain/paths.ts';
import { formatRevisionId, isRevisionId, parseRevisionId } from '../../domain/revision-id.ts';
import { fold } from '../../domain/decider.ts';
import { decideSite, needsNewSiteId, siteDecider, type SiteCommand, type Versioning } from '../../domain/site/decide.ts';
import { allows, type LifecycleCommand, type LifecycleStatus } from '../../domain/site/lifecycle.ts';
import { evolveSite, initialSiteState, type SiteState } from '../../domain/site/state.ts';
import { siteStream } from '../../domain/streams.ts';
import { deciderSpec } from '../support/decider-spec.ts';

const ADDRESS: SiteAddress = { group: 'docs', slug: 'app' };
const OFF: Versioning = { enabled: false, keep: 5 };
const on = (keep: number): Versioning => ({ enabled: true, keep });
/** 2026-01-01T00:00:00Z in nanoseconds. */
const T0 = BigInt(Date.UTC(2026, 0, 1)) * 1_000_000n;
const SEC = 1_000_000_000n;

const rev = (n: number): RevisionInfo => ({
  id: formatRevisionId(T0 + BigInt(n) * SEC),
  manifest: `m${n}`,
  files: n,
  size: 100 * n,
  ...(n % 2 === 0 ? { favicon: { hash: `f${n}`, type: 'image/png' } } : {}),
});
const id = (n: number): string => rev(n).id;

const created = (n: number, siteId = 7): SiteEvent => ({
  type: 'SitePublished',
  data: { siteId, ...ADDRESS, created: true, revision: rev(n), meta: { title: 'App', hidden: false } },
});
const replaced = (n: number, siteId = 7): SiteEvent => ({
  type: 'SitePublished',
  data: { siteId, ...ADDRESS, created: false, revision: rev(n), meta: { title: 'App', hidden: false } },
});
const archivedEv = (n: number, siteId = 7): SiteEvent => ({ type: 'SiteArchived', data: { siteId, revisionId: id(n) } });
const quarantined: SiteEvent = { type: 'SiteQuarantined', data: { siteId: 7 } };
const purged: SiteEvent = { type: 'SitePurged', data: { siteId: 7, revisions: [] } };

/** Records the events as a store would read them back. */
function given(...events: SiteEvent[]): SiteState {
  const recorded = events.map(
    (e, i): Recorded<SiteEvent> => ({
      ...e,
      stream: siteStream(ADDRESS),
      revision: i,
      position: String(i),
      meta: { actor: { kind: 'system', name: 'test' }, at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString() },
    }),
  );
  return fold(siteDecider, recorded);
}

/** Applies decided events on top of a state (for multi-step scenarios). */
function then(state: SiteState, events: SiteEvent[]): SiteState {
  return events.reduce((s, e) => evolveSite(s, { ...e, meta: { at: '2026-02-01T00:00:00.000Z' } }), state);
}

function publish(over: Partial<Extract<SiteCommand, { type: 'PublishSite' }>> = {}): SiteCommand {
  return {
    type: 'PublishSite',
    address: ADDRESS,
    meta: { title: 'New title' },
    content: { manifest: 'mNew', files: 3, size: 300 },
    nowNanos: T0 + 100n * SEC,
    newSiteId: 42,
    versioning: OFF,
    ...over,
  };
}
const rollback = (revision: string | undefined, versioning: Versioning = on(5)): SiteCommand => ({
  type: 'RollbackSite',
  address: ADDRESS,
  revision,
  versioning,
});

/** A live site with live revision 4 and archived 3, 2, 1 (most recently archived first). */
const versionedSite = (): SiteState =>
  given(created(1), archivedEv(1), replaced(2), archivedEv(2), replaced(3), archivedEv(3), replaced(4));

describe('publish a new site', () => {
  it('creates it with the new site id, the merged meta and a revision id from nowNanos', () => {
    const events = decideSite(publish({ meta: { title: 'Hello', tags: ['a'] } }), initialSiteState);
    expect(events).toEqual([
      {
        type: 'SitePublished',
        data: {
          siteId: 42,
          group: 'docs',
          slug: 'app',
          created: true,
          revision: { id: '20260101T000140.000000000Z', manifest: 'mNew', files: 3, size: 300, number: 1 },
          meta: { title: 'Hello', tags: ['a'], hidden: false },
        },
      },
    ]);
  });

  it('uses the nanoseconds of nowNanos in the revision id', () => {
    const [event] = decideSite(publish({ nowNanos: T0 + 123_456_789n }), initialSiteState);
    expect(event!.type === 'SitePublished' && event.data.revision.id).toBe('20260101T000000.123456789Z');
  });

  it('needs a title', () => {
    expect(() => decideSite(publish({ meta: {} }), initialSiteState)).toThrow(ValidationError);
  });

  it('needs an allocated id, and asks for one only when the address has no site', () => {
    expect(() => decideSite(publish({ newSiteId: undefined }), initialSiteState)).toThrow(/allocated id/);
    expect(needsNewSiteId(initialSiteState)).toBe(true);
    expect(needsNewSiteId(given(created(1)))).toBe(false);
    expect(needsNewSiteId(given(created(1), quarantined))).toBe(false);
    expect(needsNewSiteId(given(created(1), quarantined, purged))).toBe(true);
  });
});

describe('replace a live site', () => {
  it('with versioning off: publishes, then drops the previous revision; keeps the id, title and the rest of the meta', () => {
    const state = given(created(1), { type: 'SitePatched', data: { siteId: 7, meta: { title: 'App', repo: 'r', hidden: true } } });
    const events = decideSite(publish({ meta: { description: 'd' } }), state);
    expect(events).toEqual([
      {
        type: 'SitePublished',
        data: {
          siteId: 7,
          group: 'docs',
          slug: 'app',
          created: false,
          revision: { id: '20260101T000140.000000000Z', manifest: 'mNew', files: 3, size: 300, number: 2 },
          meta: { title: 'App', repo: 'r', hidden: true, description: 'd' },
        },
      },
      { type: 'RevisionDropped', data: { siteId: 7, revisionId: id(1), manifest: 'm1' } },
    ]);
  });

  it('drops the favicon of the discarded revision too', () => {
    const events = decideSite(publish(), given(created(2)));
    expect(events[1]).toEqual({ type: 'RevisionDropped', data: { siteId: 7, revisionId: id(2), manifest: 'm2', favicon: 'f2' } });
  });

  it('with versioning on and room left: archives the previous revision first and drops nothing', () => {
    const events = decideSite(publish({ versioning: on(5) }), given(created(1)));
    expect(events.map((e) => e.type)).toEqual(['SiteArchived', 'SitePublished']);
    expect(events[0]).toEqual({ type: 'SiteArchived', data: { siteId: 7, revisionId: id(1) } });
  });

  it('with versioning on beyond KEEP: drops the revisions archived longest ago, oldest first', () => {
    const state = versionedSite(); // live 4, archived 3, 2, 1
    const events = decideSite(publish({ versioning: on(2) }), state);
    expect(events.map((e) => e.type)).toEqual(['SiteArchived', 'SitePublished', 'RevisionDropped', 'RevisionDropped']);
    expect(events[0]).toEqual({ type: 'SiteArchived', data: { siteId: 7, revisionId: id(4) } });
    expect(events.slice(2).map((e) => e.type === 'RevisionDropped' && e.data.revisionId)).toEqual([id(1), id(2)]);
    const after = then(state, events);
    expect(after.archived.map((r) => r.id)).toEqual([id(4), id(3)]);
    expect(after.live!.manifest).toBe('mNew');
  });

  it('drops by archive order, not by revision id: a rolled-back revision counts as freshly archived', () => {
    // live 4, archived 3,2,1 → roll back to 1: live 1, archived 4,3,2 → publish with KEEP 2 drops 2 then 3.
    const state = then(versionedSite(), decideSite(rollback(id(1)), versionedSite()));
    expect(state.archived.map((r) => r.id)).toEqual([id(4), id(3), id(2)]);
    const events = decideSite(publish({ versioning: on(2) }), state);
    expect(events[0]).toEqual({ type: 'SiteArchived', data: { siteId: 7, revisionId: id(1) } });
    expect(events.slice(2).map((e) => e.type === 'RevisionDropped' && e.data.revisionId)).toEqual([id(2), id(3)]);
  });
});

describe('revision ids', () => {
  it('are strictly increasing even when nowNanos is equal to or behind the latest id', () => {
    const state = given(created(5));
    for (const nowNanos of [T0 + 5n * SEC, T0 + 4n * SEC, 0n]) {
      const [event] = decideSite(publish({ nowNanos }), state);
      const next = event!.type === 'SitePublished' ? event.data.revision.id : '';
      expect(isRevisionId(next)).toBe(true);
      expect(parseRevisionId(next)).toBe(T0 + 5n * SEC + 1n);
      expect(next > id(5)).toBe(true);
    }
  });

  it('keep increasing across a purge (new incarnation at the same address)', () => {
    const state = given(created(5), quarantined, purged);
    const [event] = decideSite(publish({ nowNanos: T0 }), state);
    expect(event!.type === 'SitePublished' && event.data.revision.id).toBe(formatRevisionId(T0 + 5n * SEC + 1n));
  });
});

describe('publish to a quarantined site', () => {
  it('is refused with a conflict naming the trash, whatever the versioning (spec §4)', () => {
    for (const versioning of [OFF, on(5)]) {
      const state = given(created(1), quarantined);
      expect(() => decideSite(publish({ versioning }), state)).toThrow(new ConflictError('docs/app is in the trash: restore it or purge it first'));
      // The same files as the quarantined revision change nothing either.
      expect(() => decideSite(publish({ versioning, content: { manifest: 'm1', files: 1, size: 100 } }), state)).toThrow(ConflictError);
    }
  });
});

describe('publish of the live files (spec §4: a re-run records nothing)', () => {
  const same = { manifest: 'm1', files: 1, size: 100 };
  it('with meta that changes nothing: no event', () => {
    expect(decideSite(publish({ content: same, meta: { title: 'App' }, versioning: on(1) }), given(created(1)))).toEqual([]);
    expect(decideSite(publish({ content: same, meta: {} }), given(created(1)))).toEqual([]);
  });
  it('with changed meta: only the metadata change, as a patch; no revision, nothing archived or dropped', () => {
    const events = decideSite(publish({ content: same, meta: { title: 'Renamed', tags: ['a'] }, versioning: on(1) }), given(created(1)));
    expect(events).toEqual([{ type: 'SitePatched', data: { siteId: 7, meta: { title: 'Renamed', tags: ['a'], hidden: false } } }]);
  });
  it('another manifest is a new revision even when the meta is the same', () => {
    const events = decideSite(publish({ meta: { title: 'App' } }), given(created(1)));
    expect(events.map((e) => e.type)).toEqual(['SitePublished', 'RevisionDropped']);
  });
});

describe('publish after purge', () => {
  it('starts a new incarnation with the new site id, a required title and an empty archive', () => {
    const state = given(created(1), archivedEv(1), replaced(2), quarantined, purged);
    expect(state.status).toBe('purged');
    expect(() => decideSite(publish({ meta: {} }), state)).toThrow(ValidationError);
    const events = decideSite(publish({ versioning: on(5) }), state);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'SitePublished', data: { siteId: 42, created: true, meta: { title: 'New title' } } });
    const after = then(state, events);
    expect(after).toMatchObject({ status: 'live', siteId: 42, archived: [] });
  });
});

describe('unpublish, restore, purge and patch in each state', () => {
  const states: Record<LifecycleStatus, () => SiteState> = {
    absent: () => initialSiteState,
    live: () => given(created(1), archivedEv(1), replaced(2)),
    quarantined: () => given(created(1), archivedEv(1), replaced(2), quarantined),
    purged: () => given(created(1), quarantined, purged),
  };
  const commands = {
    unpublish: { type: 'UnpublishSite', address: ADDRESS },
    restore: { type: 'RestoreSite', address: ADDRESS },
    purge: { type: 'PurgeSite', address: ADDRESS },
    patch: { type: 'PatchSite', address: ADDRESS, patch: { title: 'Patched', repo: null } },
  } as const satisfies Record<string, SiteCommand>;

  const expected: Record<keyof typeof commands, Record<LifecycleStatus, SiteEvent[] | 'not found'>> = {
    unpublish: { absent: 'not found', live: [quarantined], quarantined: 'not found', purged: 'not found' },
    restore: { absent: 'not found', live: 'not found', quarantined: [{ type: 'SiteRestored', data: { siteId: 7 } }], purged: 'not found' },
    purge: {
      absent: 'not found',
      live: 'not found',
      quarantined: [
        {
          type: 'SitePurged',
          data: {
            siteId: 7,
            revisions: [
              { id: id(2), manifest: 'm2', favicon: 'f2' },
              { id: id(1), manifest: 'm1' },
            ],
          },
        },
      ],
      purged: 'not found',
    },
    patch: {
      absent: 'not found',
      live: [{ type: 'SitePatched', data: { siteId: 7, meta: { title: 'Patched', hidden: false } } }],
      quarantined: 'not found',
      purged: 'not found',
    },
  };

  for (const [name, command] of Object.entries(commands) as [keyof typeof commands, SiteCommand][]) {
    for (const status of ['absent', 'live', 'quarantined', 'purged'] as const) {
      const outcome = expected[name][status];
      it(`${name} on a ${status} site → ${outcome === 'not found' ? 'NotFoundError' : outcome.map((e) => e.type).join(', ')}`, () => {
        const state = states[status]();
        expect(state.status).toBe(status);
        if (outcome === 'not found') expect(() => decideSite(command, state)).toThrow(NotFoundError);
        else expect(decideSite(command, state)).toEqual(outcome);
      });
    }
  }

  it('restore brings back exactly the quarantined site', () => {
    const state = states.quarantined();
    const after = then(state, decideSite(commands.restore, state));
    expect(after).toMatchObject({ status: 'live', siteId: 7, live: rev(2), archived: [rev(1)], meta: state.meta });
    expect(after.deletedAt).toBeUndefined();
  });

  it('patch clears fields set to null and keeps the rest', () => {
    const state = given(created(1), { type: 'SitePatched', data: { siteId: 7, meta: { title: 'A', repo: 'r', date: '2026-01-01', hidden: true } } });
    const [event] = decideSite({ type: 'PatchSite', address: ADDRESS, patch: { repo: null, description: 'd' } }, state);
    expect(event).toEqual({ type: 'SitePatched', data: { siteId: 7, meta: { title: 'A', date: '2026-01-01', description: 'd', hidden: true } } });
  });
});

describe('rollback', () => {
  it('with versioning off → ConflictError', () => {
    expect(() => decideSite(rollback(undefined, OFF), versionedSite())).toThrow(ConflictError);
  });

  it('with nothing archived → ConflictError', () => {
    expect(() => decideSite(rollback(undefined), given(created(1)))).toThrow(ConflictError);
    expect(() => decideSite(rollback(id(0)), given(created(1)))).toThrow(ConflictError);
  });

  it('to `current` (or the live id) → no events', () => {
    expect(decideSite(rollback('current'), versionedSite())).toEqual([]);
    expect(decideSite(rollback(id(4)), versionedSite())).toEqual([]);
    expect(decideSite(rollback('current'), given(created(1)))).toEqual([]);
  });

  it('to an unknown id → NotFoundError', () => {
    expect(() => decideSite(rollback(id(9)), versionedSite())).toThrow(NotFoundError);
    expect(() => decideSite(rollback('nonsense'), versionedSite())).toThrow(NotFoundError);
  });

  it('of a site that is not live → NotFoundError', () => {
    expect(() => decideSite(rollback(undefined), initialSiteState)).toThrow(NotFoundError);
    expect(() => decideSite(rollback(undefined), given(created(1), archivedEv(1), replaced(2), quarantined))).toThrow(NotFoundError);
  });

  it('with no revision named → the most recently archived one', () => {
    expect(decideSite(rollback(undefined), versionedSite())).toEqual([
      { type: 'SiteRolledBack', data: { siteId: 7, revisionId: id(3), previousRevisionId: id(4) } },
    ]);
  });

  it('to a named revision → that one', () => {
    expect(decideSite(rollback(id(1)), versionedSite())).toEqual([
      { type: 'SiteRolledBack', data: { siteId: 7, revisionId: id(1), previousRevisionId: id(4) } },
    ]);
  });

  it('swaps: the live revision moves to the front of the archive, the chosen one leaves it and keeps its id', () => {
    const start = versionedSite();
    const after = then(start, decideSite(rollback(id(2)), start));
    // Its number stays with it: a rollback makes none (spec §14).
    expect(after.live).toEqual({ ...rev(2), number: 2 });
    expect(after.archived.map((r) => r.id)).toEqual([id(4), id(3), id(1)]);
  });

  it('two rollbacks without a body return to where you started, never dropping a revision', () => {
    const start = versionedSite();
    const once = then(start, decideSite(rollback(undefined), start));
    expect(once.live!.id).toBe(id(3));
    const twice = then(once, decideSite(rollback(undefined), once));
    expect(twice.live).toEqual(start.live);
    expect(twice.archived).toEqual(start.archived);
  });
});

describe('lifecycle machine', () => {
  const table: Record<LifecycleStatus, LifecycleCommand[]> = {
    absent: ['PUBLISH'],
    live: ['PUBLISH', 'PATCH', 'ROLLBACK', 'UNPUBLISH', 'READ'],
    quarantined: ['RESTORE', 'PURGE'],
    purged: ['PUBLISH'],
  };
  const all: LifecycleCommand[] = ['PUBLISH', 'PATCH', 'ROLLBACK', 'UNPUBLISH', 'RESTORE', 'PURGE', 'READ'];
  for (const [status, allowed] of Object.entries(table) as [LifecycleStatus, LifecycleCommand[]][]) {
    it(`${status} allows exactly ${allowed.join(', ')}`, () => {
      expect(all.filter((c) => allows(status, c))).toEqual(allowed);
    });
  }
});

describe('the site decider (spec form)', () => {
  const spec = deciderSpec(siteDecider);
  it('publishing the live files with new meta is a patch; the trash refuses a publish', () => {
    spec.given(created(1)).when(publish({ content: { manifest: 'm1', files: 1, size: 100 }, meta: { title: 'T' } })).then([
      { type: 'SitePatched', data: { siteId: 7, meta: { title: 'T', hidden: false } } },
    ]);
    spec.given(created(1), quarantined).when(publish()).thenThrows(ConflictError);
  });
  it('the change counts measured before deciding ride on the event', () => {
    const changes = { filesAdded: 1, filesChanged: 2, filesRemoved: 3, bytesAdded: 4, bytesRemoved: 5 };
    const [event] = spec.given(created(1)).when(publish({ changes })).events();
    expect(event).toMatchObject({ type: 'SitePublished', data: changes });
    spec.given(created(1), archivedEv(1), replaced(2)).when({ ...rollback(undefined), changes } as SiteCommand).then([
      { type: 'SiteRolledBack', data: { siteId: 7, revisionId: id(1), previousRevisionId: id(2), ...changes } },
    ]);
  });
});

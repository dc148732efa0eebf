import { describe, expect, it } from 'vitest';
import { buildChangelog, describeMetaChange, groupByDay, labeller, publishesPerDay, revisionIso, revisionNumbers, revisionOption } from '../../portal/src/changelog.ts';
import { dayHeading, formatPercent, formatRelative, formatSignedBytes, initials } from '../../portal/src/format.ts';
import type { SiteEvent } from '../../portal/src/types.ts';

const seed = { kind: 'key', id: 1, name: 'seed' };
const admin = { kind: 'user', name: 'admin' };
const rev = (id: string, files: number, size: number) => ({ id, manifest: `m-${id}`, files, size });
const R1 = '20261120T090000.000000001Z';
const R2 = '20261121T100000.000000002Z';
const R3 = '20261122T110000.000000003Z';
const meta = { title: 'Docs', hidden: false };

/** A site's history: a new site, a publish with counts, an edit, a publish that drops R1 (no counts: an older event), a rollback. */
const events: SiteEvent[] = [
  { type: 'SitePublished', at: '2026-11-20T09:00:00Z', actor: seed, data: { created: true, revision: rev(R1, 3, 3_000), meta, filesAdded: 3, filesChanged: 0, filesRemoved: 0, bytesAdded: 3_000, bytesRemoved: 0 } },
  { type: 'SiteArchived', at: '2026-11-21T10:00:00Z', actor: seed, data: { revisionId: R1 } },
  { type: 'SitePublished', at: '2026-11-21T10:00:00Z', actor: seed, data: { created: false, revision: rev(R2, 4, 51_000), meta, filesAdded: 1, filesChanged: 2, filesRemoved: 0, bytesAdded: 50_000, bytesRemoved: 2_000 } },
  { type: 'SitePatched', at: '2026-11-21T12:00:00Z', actor: admin, data: { meta: { title: 'Docs 2', tags: ['a'], hidden: true } } },
  { type: 'SiteArchived', at: '2026-11-22T11:00:00Z', actor: seed, data: { revisionId: R2 } },
  { type: 'SitePublished', at: '2026-11-22T11:00:00Z', actor: seed, data: { created: false, revision: rev(R3, 2, 1_000), meta } },
  { type: 'RevisionDropped', at: '2026-11-22T11:00:00Z', actor: seed, data: { revisionId: R1, manifest: 'm' } },
  { type: 'SiteRolledBack', at: '2026-11-22T11:30:00Z', actor: admin, data: { revisionId: R2, previousRevisionId: R3 } },
];

describe('portal changelog', () => {
  it('numbers revisions by publish order; a rollback keeps the label of the revision it brings back', () => {
    const numbers = revisionNumbers([], events)!;
    expect([...numbers]).toEqual([[R1, 1], [R2, 2], [R3, 3]]);
    const label = labeller(numbers);
    expect(label(R2)).toBe('v2');
    // without the history (viewers): the revision's publish time, in the viewer's zone
    expect(labeller(undefined)(R2)).toMatch(/^2026-11-2\d \d\d:00:00$/);
    expect(revisionIso(R2)).toBe('2026-11-21T10:00:00.000Z');
    expect(labeller(undefined)('not-an-id')).toBe('not-an-id');
    // two kept revisions within one second are told apart by their milliseconds
    const twins = ['20261121T100000.123000000Z', '20261121T100000.456000000Z'];
    expect(twins.map(labeller(undefined, [...twins, R3]))).toEqual([expect.stringMatching(/:00\.123$/), expect.stringMatching(/:00\.456$/)]);
    expect(labeller(undefined, [...twins, R3])(R3)).toMatch(/:00:00$/);
  });

  it('numbers as spec §14 does: a purge starts again at 1, and a number the service sends wins', () => {
    const purgedAndBack: SiteEvent[] = [
      ...events,
      { type: 'SitePurged', at: '2026-11-23T00:00:00Z', actor: admin, data: { revisions: [] } },
      { type: 'SitePublished', at: '2026-11-24T00:00:00Z', actor: seed, data: { created: true, revision: rev('20261124T000000.000000004Z', 1, 10), meta } },
    ];
    expect(revisionNumbers([], purgedAndBack)!.get('20261124T000000.000000004Z')).toBe(1);
    // the field spec §14 adds to Revision is read when present, with or without the history
    expect(revisionNumbers([{ id: R3, number: 7 }], events)!.get(R3)).toBe(7);
    expect([...revisionNumbers([{ id: R3, number: 7 }, { id: R2 }])!]).toEqual([[R3, 7]]);
    // viewers (no history, no field): no numbers, so labels are publish times to the second
    expect(revisionNumbers([{ id: R3 }, { id: R2 }])).toBeUndefined();
  });

  it('a revision picker leads with the number, then the publish time to the second', () => {
    const within = (s: string) => ({ id: `20261124T1015${s}.000000000Z`, current: false, created_at: `2026-11-24T10:15:${s}.000Z`, size: 48_000, files: 4 });
    const [a, b, c] = [within('01'), within('17'), { ...within('42'), current: true }];
    const label = labeller(revisionNumbers([], [a, b, c].map((r) => ({ type: 'SitePublished', at: r.created_at, actor: seed, data: { revision: { id: r.id } } })))!);
    const options = [a, b, c].map((r) => revisionOption(r, label(r.id)));
    expect(options[0]).toMatch(/^v1 · 2026-11-24 \d\d:\d\d:01 · 48 KB · 4 files$/);
    expect(options[2]).toMatch(/^v3 · 2026-11-24 \d\d:\d\d:42 · live · 48 KB · 4 files$/);
    expect(new Set(options).size).toBe(3);
    // without numbers the time is the label, said once
    expect(revisionOption(b, labeller(undefined)(b.id))).toMatch(/^2026-11-24 \d\d:\d\d:17 · 48 KB · 4 files$/);
  });

  it('reads the events as entries, newest first, with counts, size changes and dropped revisions', () => {
    const log = buildChangelog(events);
    expect(log.map((e) => e.kind)).toEqual(['rollback', 'publish', 'note', 'publish', 'publish']);
    const [rollback, p3, edit, p2, p1] = log;
    expect(p1).toMatchObject({ kind: 'publish', id: R1, created: true, fromId: undefined, counts: { added: 3, changed: 0, removed: 0 }, netBytes: 3_000 });
    expect(p2).toMatchObject({ kind: 'publish', id: R2, fromId: R1, counts: { added: 1, changed: 2, removed: 0 }, netBytes: 48_000 });
    // no counts in an older event: the totals are there, and the size change comes from the revision sizes
    expect(p3).toMatchObject({ kind: 'publish', id: R3, fromId: R2, counts: undefined, files: 2, size: 1_000, netBytes: -50_000, dropped: [R1] });
    expect(rollback).toMatchObject({ kind: 'rollback', id: R2, fromId: R3, netBytes: 50_000 });
    expect(edit).toMatchObject({ kind: 'note', type: 'SitePatched' });
    expect((edit as { text: string }).text).toBe('Edited metadata: changed title “Docs” → “Docs 2”; tags a; now hidden');
  });

  it('tells what an edit changed', () => {
    expect(describeMetaChange({ title: 'A', hidden: false }, { title: 'A', hidden: false })).toBe('no visible change');
    expect(describeMetaChange({ title: 'A', hidden: true, repo: 'x' }, { title: 'A', hidden: false })).toBe('changed repository removed; now listed');
  });

  it('a purge ends the live revision: the next publish is a new site again', () => {
    const log = buildChangelog([
      events[0],
      { type: 'SitePurged', at: '2026-11-23T00:00:00Z', actor: admin, data: { revisions: [] } },
      { type: 'SitePublished', at: '2026-11-24T00:00:00Z', actor: seed, data: { created: true, revision: rev(R3, 1, 10), meta } },
    ]);
    expect(log[0]).toMatchObject({ kind: 'publish', created: true, fromId: undefined, netBytes: 10 });
    expect(log[1]).toMatchObject({ kind: 'note', type: 'SitePurged' });
  });

  it('tells custom domains attached and detached, and leaves out an attach that never finished', () => {
    const log = buildChangelog([
      events[0],
      { type: 'DomainAttached', at: '2026-11-23T00:00:00Z', actor: admin, data: { domain: 'docs.acme.com' } },
      { type: 'DomainDetached', at: '2026-11-23T01:00:00Z', actor: admin, data: { domain: 'late.acme.com', reason: 'unfinished' } },
      { type: 'DomainDetached', at: '2026-11-24T00:00:00Z', actor: admin, data: { domain: 'docs.acme.com', reason: 'purged' } },
    ]);
    expect(log.slice(0, 2)).toMatchObject([
      { kind: 'note', type: 'DomainDetached', text: 'Custom domain docs.acme.com detached (the site was purged)' },
      { kind: 'note', type: 'DomainAttached', text: 'Custom domain docs.acme.com attached' },
    ]);
    expect(log).toHaveLength(3);
  });

  it('groups by local day and counts publishes per day', () => {
    const local = (d: number, h: number) => new Date(2026, 10, d, h).toISOString();
    const groups = groupByDay([{ at: local(22, 23) }, { at: local(22, 1) }, { at: local(21, 12) }]);
    expect(groups.map((g) => [g.day, g.entries.length])).toEqual([['2026-11-22', 2], ['2026-11-21', 1]]);
    const now = new Date(2026, 10, 22, 18).getTime();
    const perDay = publishesPerDay(
      [
        { type: 'SitePublished', at: local(22, 9), actor: seed },
        { type: 'SitePublished', at: local(22, 10), actor: seed },
        { type: 'SiteRolledBack', at: local(22, 11), actor: seed },
        { type: 'SitePublished', at: local(20, 10), actor: seed },
        { type: 'SitePublished', at: local(1, 10), actor: seed },
      ],
      7,
      now,
    );
    expect(perDay).toHaveLength(7);
    expect(perDay[6]).toEqual({ day: '2026-11-22', count: 2 });
    expect(perDay[4]).toEqual({ day: '2026-11-20', count: 1 });
    expect(perDay[0].day).toBe('2026-11-16');
    expect(perDay.reduce((n, d) => n + d.count, 0)).toBe(3);
  });
});

describe('portal time and size words', () => {
  const now = new Date(2026, 10, 24, 15, 0, 0).getTime();
  const at = (ms: number) => new Date(now + ms).toISOString();
  it('says how long ago, or until, a moment is', () => {
    expect(formatRelative(at(-10_000), now)).toBe('just now');
    expect(formatRelative(at(-60_000), now)).toBe('1 minute ago');
    expect(formatRelative(at(-5 * 60_000), now)).toBe('5 minutes ago');
    expect(formatRelative(at(-3 * 3_600_000), now)).toBe('3 hours ago');
    expect(formatRelative(new Date(2026, 10, 23, 9).toISOString(), now)).toBe('yesterday');
    expect(formatRelative(new Date(2026, 10, 20, 9).toISOString(), now)).toBe('4 days ago');
    expect(formatRelative(new Date(2026, 10, 27, 9).toISOString(), now)).toBe('in 3 days');
    expect(formatRelative(at(2 * 3_600_000), now)).toBe('in 2 hours');
    expect(formatRelative(new Date(2099, 0, 1, 12).toISOString(), now)).toBe('2099-01-01');
    expect(formatRelative(undefined, now)).toBe('');
  });
  it('names days, signs sizes, makes initials and percentages', () => {
    expect(dayHeading('2026-11-24', now)).toBe('Today');
    expect(dayHeading('2026-11-23', now)).toBe('Yesterday');
    expect(dayHeading('2026-11-17', now)).toBe('Tuesday 17 November 2026');
    expect(formatSignedBytes(48_000)).toBe('+48 KB');
    expect(formatSignedBytes(-1_200_000)).toBe('−1.2 MB');
    expect(formatSignedBytes(0)).toBe('±0 B');
    expect(initials('Docs Guide')).toBe('DG');
    expect(initials('blog')).toBe('B');
    expect(initials('  my-site 2026 ')).toBe('MS');
    expect(initials('¡Hola!')).toBe('H');
    expect(formatPercent(178, 240)).toBe('74%');
    expect(formatPercent(1, 1000)).toBe('1%');
    expect(formatPercent(999, 1000)).toBe('99%');
    expect(formatPercent(5, 0)).toBe('0%');
  });

  it('tells preview events as entries of their own: published (new or updated) with the counts against live, removed by whom, expired', () => {
    const ci = { kind: 'key', id: 4, name: 'pr-bot' };
    const P1 = '20261122T120000.000000004Z';
    const P2 = '20261122T130000.000000005Z';
    const withPreviews: SiteEvent[] = [
      ...events,
      { type: 'PreviewPublished', at: '2026-11-22T12:00:00Z', actor: ci, data: { siteId: 1, name: 'pr-42', created: true, revision: rev(P1, 3, 900), meta: { title: '<b>x</b>' }, expiresAt: '2026-12-06T12:00:00Z', filesAdded: 1, filesChanged: 1, filesRemoved: 0 } },
      { type: 'PreviewPublished', at: '2026-11-22T13:00:00Z', actor: ci, data: { siteId: 1, name: 'pr-42', created: false, revision: rev(P2, 3, 950), meta: {}, expiresAt: '2026-12-06T13:00:00Z', filesAdded: 0, filesChanged: 2, filesRemoved: 1 } },
      { type: 'PreviewRemoved', at: '2026-11-22T14:00:00Z', actor: admin, data: { siteId: 1, name: 'pr-42', revisionId: P2, manifest: 'm' } },
      { type: 'PreviewExpired', at: '2026-11-22T15:00:00Z', actor: { kind: 'system', name: 'preview-expiry' }, data: { siteId: 1, name: 'pr-7', revisionId: P1, manifest: 'm' } },
    ];
    const log = buildChangelog(withPreviews);
    expect(log.slice(0, 4)).toEqual([
      { kind: 'preview', type: 'PreviewExpired', name: 'pr-7', revisionId: P1, at: '2026-11-22T15:00:00Z', actor: { kind: 'system', name: 'preview-expiry' } },
      { kind: 'preview', type: 'PreviewRemoved', name: 'pr-42', revisionId: P2, at: '2026-11-22T14:00:00Z', actor: admin },
      expect.objectContaining({ kind: 'preview', type: 'PreviewPublished', name: 'pr-42', created: false, revisionId: P2, counts: expect.objectContaining({ added: 0, changed: 2, removed: 1 }) }),
      expect.objectContaining({ kind: 'preview', type: 'PreviewPublished', name: 'pr-42', created: true, revisionId: P1, counts: expect.objectContaining({ added: 1, changed: 1, removed: 0 }) }),
    ]);
    // a preview never changes what is live, nor the numbering of the site's revisions
    expect([...revisionNumbers([], withPreviews)!]).toEqual([[R1, 1], [R2, 2], [R3, 3]]);
    expect(log.slice(4)).toEqual(buildChangelog(events));
  });
});

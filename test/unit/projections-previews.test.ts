/**
 * Projection specs of previews and permalinks (spec §14): the site document holds each
 * preview, revision numbers and what GC must keep. Every scenario is delivered once, as the
 * same batch twice and with each event twice in a row, and must give the same records.
 */
import { describe, expect, it } from 'vitest';
import type { Recorded } from '../../domain/events.ts';
import type { SiteEvent } from '../../domain/site/events.ts';
import type { SiteDoc, StreamRecord } from '../../projections/documents.ts';
import { projectBatch } from '../../projections/project.ts';
import { retainedRevisions, previewExpiry } from '../../host/readmodel/derive.ts';
import { ACTOR, archived, eventLog, meta, published, purged, quarantined, restored, revision, streamOfPath } from '../contracts/readmodel-events.ts';

type Store = Map<string, StreamRecord>;

function deliver(store: Store, events: readonly Recorded[]): Store {
  const next = new Map(store);
  for (const [stream, record] of projectBatch(events, store)) next.set(stream, record);
  return next;
}

function project(events: readonly Recorded[]): Store {
  const once = deliver(new Map(), events);
  expect(deliver(deliver(new Map(), events), events)).toEqual(once);
  expect(events.reduce((store, e) => deliver(deliver(store, [e]), [e, e]), new Map() as Store)).toEqual(once);
  return once;
}

const doc = (store: Store, path: string) => store.get(streamOfPath(path))?.doc as SiteDoc | null | undefined;

const previewPublished = (name: string, rev: string, expiresAt: string, created = true): SiteEvent => ({
  type: 'PreviewPublished',
  data: { siteId: 1, name, created, revision: revision(rev), meta: { title: `PR ${name}` }, expiresAt, filesAdded: 1, filesChanged: 2, filesRemoved: 0, bytesAdded: 10, bytesRemoved: 5 },
});
const gone = (type: 'PreviewRemoved' | 'PreviewExpired', name: string, rev: string): SiteEvent => ({
  type,
  data: { siteId: 1, name, revisionId: rev, manifest: `m-${rev}` },
});

describe('preview projection', () => {
  it('holds each preview with who made it, when, its counts and expiry; GC keeps its manifest; the earliest expiry is indexed', () => {
    const log = eventLog();
    log.site('docs/app', published('docs/app', 1, { ...revision('r1'), number: 1 }, meta('App')));
    const first = log.site('docs/app', previewPublished('pr-2', 'p1', '2026-02-01T00:00:00.000Z'));
    log.site('docs/app', previewPublished('pr-1', 'p2', '2026-01-20T00:00:00.000Z'));
    const again = log.site('docs/app', previewPublished('pr-2', 'p3', '2026-02-05T00:00:00.000Z', false));
    const d = doc(project(log.events), 'docs/app')!;
    expect(d.previews!.map((p) => p.name)).toEqual(['pr-1', 'pr-2']);
    expect(d.previews![1]).toEqual({
      name: 'pr-2',
      revision: revision('p3'),
      meta: { title: 'PR pr-2' },
      createdAt: first.meta.at,
      createdBy: ACTOR,
      updatedAt: again.meta.at,
      updatedBy: ACTOR,
      expiresAt: '2026-02-05T00:00:00.000Z',
      changes: { filesAdded: 1, filesChanged: 2, filesRemoved: 0, bytesAdded: 10, bytesRemoved: 5 },
    });
    expect(retainedRevisions(d).map((r) => r.manifest)).toEqual(['m-r1', 'm-p2', 'm-p3']);
    expect(previewExpiry(d)).toBe('2026-01-20T00:00:00.000Z');
  });

  it('drops a removed or expired preview, and its manifest from what GC keeps', () => {
    const log = eventLog();
    log.site('docs/app', published('docs/app', 1, revision('r1'), meta('App')));
    log.site('docs/app', previewPublished('pr-1', 'p1', '2026-02-01T00:00:00.000Z'));
    log.site('docs/app', previewPublished('pr-2', 'p2', '2026-02-01T00:00:00.000Z'));
    log.site('docs/app', gone('PreviewRemoved', 'pr-1', 'p1'));
    let d = doc(project(log.events), 'docs/app')!;
    expect(d.previews!.map((p) => p.name)).toEqual(['pr-2']);
    log.site('docs/app', gone('PreviewExpired', 'pr-2', 'p2'));
    d = doc(project(log.events), 'docs/app')!;
    expect(d.previews).toBeUndefined();
    expect(retainedRevisions(d).map((r) => r.manifest)).toEqual(['m-r1']);
    expect(previewExpiry(d)).toBeNull();
  });

  it('keeps previews through the trash and back; a purge ends them with the site, and a new incarnation counts from 1', () => {
    const log = eventLog();
    log.site('docs/app', published('docs/app', 1, revision('r1'), meta('App')));
    log.site('docs/app', archived(1, 'r1'));
    log.site('docs/app', published('docs/app', 1, revision('r2'), meta('App'), false));
    log.site('docs/app', previewPublished('pr-1', 'p1', '2026-02-01T00:00:00.000Z'));
    log.site('docs/app', quarantined(1));
    let d = doc(project(log.events), 'docs/app')!;
    expect(d.status).toBe('quarantined');
    expect(d.previews!.map((p) => p.name)).toEqual(['pr-1']);
    log.site('docs/app', restored(1));
    d = doc(project(log.events), 'docs/app')!;
    expect([d.live.number, d.archived.map((r) => r.number), d.lastNumber]).toEqual([2, [1], 2]);
    expect(d.previews!.map((p) => p.name)).toEqual(['pr-1']);
    log.site('docs/app', quarantined(1));
    log.site('docs/app', purged(1, ['r2', 'r1', 'p1'].map((id) => ({ id, manifest: `m-${id}` }))));
    log.site('docs/app', published('docs/app', 2, revision('r3'), meta('App again')));
    d = doc(project(log.events), 'docs/app')!;
    expect([d.siteId, d.live.number, d.lastNumber, d.previews]).toEqual([2, 1, 1, undefined]);
  });
});

/**
 * Decider specs of previews and permalinks (spec §14): given the events of a site stream,
 * when a preview command (or a publish, for the revision numbers), then exactly these events
 * or this typed error. Nothing but the site decider runs.
 */
import { describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError, ValidationError } from '../../domain/errors.ts';
import type { RevisionInfo, SiteEvent } from '../../domain/events.ts';
import type { SiteAddress } from '../../domain/paths.ts';
import { formatRevisionId } from '../../domain/revision-id.ts';
import { siteDecider, type SiteCommand, type Versioning } from '../../domain/site/decide.ts';
import { assertPreviewName, changedPages, pageUrlPath, parseVariant } from '../../domain/site/previews.ts';
import { deciderSpec } from '../support/decider-spec.ts';

const ADDRESS: SiteAddress = { group: 'docs', slug: 'app' };
const T0 = BigInt(Date.UTC(2026, 0, 1)) * 1_000_000n;
const SEC = 1_000_000_000n;
const spec = deciderSpec(siteDecider);
const ON: Versioning = { enabled: true, keep: 5 };

const rev = (n: number, extra: Partial<RevisionInfo> = {}): RevisionInfo => ({ id: formatRevisionId(T0 + BigInt(n) * SEC), manifest: `m${n}`, files: n, size: 10 * n, ...extra });
const meta = { title: 'App', hidden: false };
/** A publish as logs before permalinks recorded it: no number. */
const published = (n: number, created = false, siteId = 7): SiteEvent => ({ type: 'SitePublished', data: { siteId, ...ADDRESS, created, revision: rev(n), meta } });
const archived = (n: number): SiteEvent => ({ type: 'SiteArchived', data: { siteId: 7, revisionId: rev(n).id } });
const quarantined: SiteEvent = { type: 'SiteQuarantined', data: { siteId: 7 } };
const purged: SiteEvent = { type: 'SitePurged', data: { siteId: 7, revisions: [] } };
const previewPublished = (name: string, n: number, expiresAt = '2026-01-15T00:00:00.000Z', created = true): SiteEvent => ({
  type: 'PreviewPublished',
  data: { siteId: 7, name, created, revision: rev(n, { id: formatRevisionId(T0 + BigInt(1000 + n) * SEC) }), meta: { title: `PR ${name}` }, expiresAt },
});

const publishPreview = (over: Partial<Extract<SiteCommand, { type: 'PublishPreview' }>> = {}): SiteCommand => ({
  type: 'PublishPreview',
  address: ADDRESS,
  name: 'pr-42',
  meta: { title: 'Fix the menu', repo: 'https://github.com/o/r/pull/42' },
  content: { manifest: 'mP', files: 4, size: 40 },
  nowNanos: T0 + 5000n * SEC,
  expiresAt: '2026-01-20T00:00:00.000Z',
  maxPreviews: 3,
  changes: { filesAdded: 1, filesChanged: 2, filesRemoved: 0, bytesAdded: 30, bytesRemoved: 10 },
  pages: ['new.html', 'index.html'],
  ...over,
});
const publishSite = (manifest: string, newSiteId?: number): SiteCommand => ({
  type: 'PublishSite',
  address: ADDRESS,
  meta: { title: 'App' },
  content: { manifest, files: 1, size: 1 },
  nowNanos: T0 + 9000n * SEC,
  newSiteId,
  versioning: ON,
});

describe('revision numbers (permalinks)', () => {
  const numberOf = (events: readonly SiteEvent[]) => {
    const e = events.find((x) => x.type === 'SitePublished');
    return e?.type === 'SitePublished' ? e.data.revision.number : undefined;
  };

  it('the first publish of a site is 1, each new revision one more', () => {
    expect(numberOf(spec.given().when(publishSite('a', 7)).events())).toBe(1);
    expect(numberOf(spec.given(published(1, true)).when(publishSite('a')).events())).toBe(2);
    expect(numberOf(spec.given(published(1, true), archived(1), published(2)).when(publishSite('a')).events())).toBe(3);
  });

  it('a rollback makes no number; the revision keeps the one it was published with', () => {
    const rolledBack: SiteEvent = { type: 'SiteRolledBack', data: { siteId: 7, revisionId: rev(1).id, previousRevisionId: rev(2).id } };
    const state = spec.state(published(1, true), archived(1), published(2), rolledBack);
    expect(state.live).toMatchObject({ id: rev(1).id, number: 1 });
    expect(state.archived.map((r) => r.number)).toEqual([2]);
    expect(numberOf(spec.given(published(1, true), archived(1), published(2), rolledBack).when(publishSite('c')).events())).toBe(3);
  });

  it('the same files again make no revision and no number', () => {
    expect(spec.given(published(1, true)).when(publishSite('m1')).events()).toEqual([]);
  });

  it('a purge ends the count: the site published anew starts again at 1', () => {
    expect(numberOf(spec.given(published(1, true), published(2), quarantined, purged).when(publishSite('x', 8)).events())).toBe(1);
  });

  it('a log written before permalinks replays to the same numbers decide would have given', () => {
    const state = spec.state(published(1, true), archived(1), published(2), archived(2), published(3), quarantined, purged, published(4, true, 8), published(5, false, 8));
    expect(state.live).toMatchObject({ id: rev(5).id, number: 2 });
    expect(state.lastNumber).toBe(2);
  });

  it('an event that carries its number is taken at its word', () => {
    const numbered: SiteEvent = { type: 'SitePublished', data: { siteId: 7, ...ADDRESS, created: false, revision: rev(2, { number: 9 }), meta } };
    expect(spec.state(published(1, true), numbered).live!.number).toBe(9);
  });
});

describe('publish a preview', () => {
  it('beside a live site: PreviewPublished with its own revision id, the counts against live and the pages', () => {
    spec.given(published(1, true)).when(publishPreview()).then([
      {
        type: 'PreviewPublished',
        data: {
          siteId: 7,
          name: 'pr-42',
          created: true,
          revision: { id: '20260101T012320.000000000Z', manifest: 'mP', files: 4, size: 40 },
          meta: { title: 'Fix the menu', repo: 'https://github.com/o/r/pull/42' },
          expiresAt: '2026-01-20T00:00:00.000Z',
          pages: ['new.html', 'index.html'],
          filesAdded: 1,
          filesChanged: 2,
          filesRemoved: 0,
          bytesAdded: 30,
          bytesRemoved: 10,
        },
      },
    ]);
  });

  it('never touches what is live: the live revision, its number and the archive stay', () => {
    const before = spec.state(published(1, true), archived(1), published(2));
    const after = spec.state(published(1, true), archived(1), published(2), previewPublished('pr-1', 1));
    expect(after.live).toEqual(before.live);
    expect(after.archived).toEqual(before.archived);
    expect(after.updatedAt).toBe(before.updatedAt);
    expect(after.meta).toEqual(before.meta);
    expect(after.previews?.map((p) => p.name)).toEqual(['pr-1']);
  });

  it('needs the site live: never published, in the trash or purged → 404', () => {
    spec.given().when(publishPreview()).thenThrows(NotFoundError);
    spec.given(published(1, true), quarantined).when(publishPreview()).thenThrows(NotFoundError);
    spec.given(published(1, true), quarantined, purged).when(publishPreview()).thenThrows(NotFoundError);
  });

  it('the same files and description again record nothing', () => {
    const existing = previewPublished('pr-42', 1);
    const same = spec.state(published(1, true), existing).previews![0]!;
    spec.given(published(1, true), existing).when(publishPreview({ content: { manifest: same.revision.manifest, files: 1, size: 10 }, meta: { title: 'PR pr-42' } })).then([]);
  });

  it('the same files with a new description record it, with the same revision and a new expiry', () => {
    const [event] = spec.given(published(1, true), previewPublished('pr-42', 1)).when(publishPreview({ content: { manifest: 'm1', files: 1, size: 10 }, meta: { title: 'Renamed' } })).events();
    expect(event).toMatchObject({ type: 'PreviewPublished', data: { created: false, meta: { title: 'Renamed' }, expiresAt: '2026-01-20T00:00:00.000Z' } });
    expect(event!.type === 'PreviewPublished' && event.data.revision.id).toBe(formatRevisionId(T0 + 1001n * SEC));
  });

  it('new files replace its content: a new revision id, newer than every id of the address', () => {
    const state = spec.state(published(1, true), previewPublished('pr-42', 1));
    const [event] = spec.given(published(1, true), previewPublished('pr-42', 1)).when(publishPreview({ nowNanos: T0 })).events();
    expect(event!.type === 'PreviewPublished' && event.data.revision.id > state.latestRevisionId!).toBe(true);
  });

  it('at most SITES_MAX_PREVIEWS_PER_SITE: one more → 409; replacing one of them is fine', () => {
    const full = [published(1, true), previewPublished('a', 1), previewPublished('b', 2), previewPublished('c', 3)];
    spec.given(...full).when(publishPreview({ name: 'd' })).thenThrows(ConflictError);
    expect(spec.given(...full).when(publishPreview({ name: 'b' })).events()).toHaveLength(1);
  });

  it('refuses a bad name with 400 before anything else', () => {
    for (const name of ['pr--42', 'v12', 'v0', 'PR-1', '-a', 'a'.repeat(60), '']) {
      spec.given(published(1, true)).when(publishPreview({ name })).thenThrows(ValidationError);
    }
  });
});

describe('remove, expire, and the site lifecycle', () => {
  it('remove: PreviewRemoved with what garbage collection needs; an unknown name → 404', () => {
    const withFavicon: SiteEvent = { ...previewPublished('pr-1', 2), data: { ...(previewPublished('pr-1', 2).data as object), revision: rev(2, { id: rev(1002).id, favicon: { hash: 'fav', type: 'image/png' } }) } } as SiteEvent;
    spec.given(published(1, true), withFavicon).when({ type: 'RemovePreview', address: ADDRESS, name: 'pr-1' }).then([
      { type: 'PreviewRemoved', data: { siteId: 7, name: 'pr-1', revisionId: rev(1002).id, manifest: 'm2', favicon: 'fav' } },
    ]);
    spec.given(published(1, true)).when({ type: 'RemovePreview', address: ADDRESS, name: 'pr-1' }).thenThrows(NotFoundError);
    expect(spec.state(published(1, true), withFavicon, { type: 'PreviewRemoved', data: { siteId: 7, name: 'pr-1', revisionId: rev(1002).id, manifest: 'm2' } }).previews).toBeUndefined();
  });

  it('expiry: only previews whose time has come, on a live site or one in the trash', () => {
    const events = [published(1, true), previewPublished('old', 1, '2026-01-10T00:00:00.000Z'), previewPublished('new', 2, '2026-02-10T00:00:00.000Z')];
    const expire = { type: 'ExpirePreviews', address: ADDRESS, now: '2026-01-10T00:00:00.000Z' } as const;
    spec.given(...events).when(expire).then([{ type: 'PreviewExpired', data: { siteId: 7, name: 'old', revisionId: rev(1001).id, manifest: 'm1' } }]);
    expect(spec.given(...events, quarantined).when(expire).events().map((e) => e.type)).toEqual(['PreviewExpired']);
    spec.given(...events).when({ ...expire, now: '2026-01-09T23:59:59.999Z' }).then([]);
  });

  it('unpublish keeps the previews (offline with the site); restore brings back those not expired', () => {
    const events = [published(1, true), previewPublished('old', 1, '2026-01-10T00:00:00.000Z'), previewPublished('new', 2, '2026-02-10T00:00:00.000Z'), quarantined];
    expect(spec.state(...events).previews?.map((p) => p.name)).toEqual(['new', 'old']);
    const decided = spec.given(...events).when({ type: 'RestoreSite', address: ADDRESS, now: '2026-01-20T00:00:00.000Z' }).events();
    expect(decided.map((e) => e.type)).toEqual(['PreviewExpired', 'SiteRestored']);
    expect(spec.state(...events, ...decided).previews?.map((p) => p.name)).toEqual(['new']);
  });

  it('purge destroys them: their revisions are collected with the site’s, and a new incarnation has none', () => {
    const events = [published(1, true), previewPublished('pr-1', 2), quarantined];
    const [purge] = spec.given(...events).when({ type: 'PurgeSite', address: ADDRESS }).events();
    expect(purge!.type === 'SitePurged' && purge.data.revisions.map((r) => r.manifest)).toEqual(['m1', 'm2']);
    expect(spec.state(...events, purge!, published(3, true, 8)).previews).toBeUndefined();
  });
});

describe('preview names, hosts and pages', () => {
  it('a name is a label without --, not v<digits>, short enough for <name>--<slug>', () => {
    expect(() => assertPreviewName('pr-42', 'app')).not.toThrow();
    expect(() => assertPreviewName('a'.repeat(58), 'app')).not.toThrow(); // 58 + 2 + 3 = 63
    expect(() => assertPreviewName('a'.repeat(59), 'app')).toThrow(/longer than 63/);
    expect(() => assertPreviewName('v7', 'app')).toThrow(/permalink/);
    expect(() => assertPreviewName('a--b', 'app')).toThrow(/"--"/);
  });

  it('parseVariant: a preview name, a canonical v<N>, or nothing', () => {
    expect(parseVariant('pr-42')).toEqual({ kind: 'preview', name: 'pr-42' });
    expect(parseVariant('v7')).toEqual({ kind: 'permalink', number: 7 });
    for (const bad of ['v0', 'v07', '', '-a', 'A']) expect(parseVariant(bad), bad).toBeUndefined();
  });

  it('changedPages: added HTML first, then changed, each by path, at most 20', () => {
    const diff = {
      added: [{ path: 'z.html' }, { path: 'a.css' }, { path: 'b/index.html' }],
      changed: [{ path: 'index.html' }, { path: 'about.htm' }],
    };
    expect(changedPages(diff)).toEqual(['b/index.html', 'z.html', 'about.htm', 'index.html']);
    const many = { added: Array.from({ length: 30 }, (_, i) => ({ path: `p${String(i).padStart(2, '0')}.html` })), changed: [{ path: 'index.html' }] };
    expect(changedPages(many)).toHaveLength(20);
    expect(changedPages(many)).not.toContain('index.html');
  });

  it('pageUrlPath: index files as their folder, names encoded', () => {
    expect(pageUrlPath('index.html')).toBe('/');
    expect(pageUrlPath('docs/index.html')).toBe('/docs/');
    expect(pageUrlPath('a b/c.html')).toBe('/a%20b/c.html');
  });
});

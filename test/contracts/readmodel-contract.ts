/**
 * The contract every ReadModel adapter passes (SQLite always, MongoDB when a server is
 * configured). `factory()` opens a fresh, empty store and returns a way to open a second
 * handle on the same store (another process, in production).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Deploy, DeployBlob } from '../../domain/deploy/deploy.ts';
import type { Recorded } from '../../domain/events.ts';
import type { SiteEvent } from '../../domain/site/events.ts';
import type { SiteDoc } from '../../projections/documents.ts';
import type { ReadModel, SiteQuery } from '../../projections/read-model.ts';
import { applyTreeChanges, type TreeNodeDoc } from '../../projections/site-tree.ts';
import {
  archived,
  clientExpired,
  clientRegistered,
  clientRegisteredExpiring,
  clientUsed,
  connectionGranted,
  connectionRefreshed,
  connectionRevoked,
  connectionUsed,
  domainAttached,
  domainDetached,
  dropped,
  eventLog,
  keyIssued,
  keyRevoked,
  keyUsed,
  meta,
  patched,
  positionOf,
  published,
  purged,
  quarantined,
  restored,
  revision,
  rolledBack,
  streamOfPath,
} from './readmodel-events.ts';

export type ReadModelFactory = () => Promise<{ model: ReadModel; another: () => Promise<ReadModel> }>;

/**
 * Latency bounds for listing 10,000 sites. `cpu` measures the process's own CPU time per
 * query, which other processes' load on the shared cores cannot inflate (right for an
 * in-process engine); `wall` measures elapsed time (a server adapter's work is elsewhere).
 */
export type ListBudget = { readonly p50Ms: number; readonly p99Ms: number; readonly clock: 'cpu' | 'wall' };

const Q: SiteQuery = { sort: 'date', includeHidden: false, limit: 50, offset: 0 };
const paths = (docs: readonly SiteDoc[]): string[] => docs.map((d) => d.path);

/** A small world: sites in groups, a flat site and a group sharing the name `decks`, a hidden and a quarantined site. */
export function world() {
  const log = eventLog();
  const at = (day: number) => `2026-02-${String(day).padStart(2, '0')}T10:00:00.000Z`;
  log.site('decks', published('decks', 1, revision('r1'), meta('Decks Home', { date: '2025-05-01', tags: ['slides'] })), at(1));
  log.site('decks/pr-6', published('decks/pr-6', 2, revision('r2'), meta('PR 6 preview', { tags: ['preview', 'slides'] })), at(2));
  log.site('decks/pr-7', published('decks/pr-7', 3, revision('r3'), meta('pr 7 preview', { tags: ['preview'] })), at(3));
  log.site('docs/app', published('docs/app', 4, revision('r4'), meta('Application Guide', { date: '2025-07-01', description: 'How to ÜSE the app' })), at(4));
  log.site('docs/app/v1', published('docs/app/v1', 5, revision('r5'), meta('Version one', { date: '2025-06-01' })), at(5));
  log.site('docsy', published('docsy', 6, revision('r6'), meta('Not docs', { date: '2025-07-01' })), at(6));
  log.site('secret', published('secret', 7, revision('r7'), meta('Secret', { hidden: true, tags: ['slides'] })), at(7));
  log.site('gone', published('gone', 8, revision('r8'), meta('Gone soon')), at(8));
  log.site('gone', quarantined(8), at(9));
  log.add('key-1', keyIssued(1, 'hash-1', { admin: true }));
  log.add('key-2', keyIssued(2, 'hash-2'));
  log.add('key-2', keyUsed(2, '2026-03-01T00:00:00.000Z'));
  log.add('oauthclient-c1', clientRegistered('c1'));
  log.add('connection-x1', connectionGranted('x1', 'c1', 'rt-1'));
  log.add('sequence-site', { type: 'IdAllocated', data: { id: 1 } });
  return log;
}

/** OAuth clients: unused (c1 and c4 registered together, c2, c6), used (c3), expired (c5), from before expiry existed (c7). */
export function clientWorld() {
  const log = eventLog();
  log.add('oauthclient-c1', clientRegisteredExpiring('c1', '2026-01-01T00:00:00.000Z'));
  log.add('oauthclient-c2', clientRegisteredExpiring('c2', '2026-01-02T00:00:00.000Z'));
  log.add('oauthclient-c3', clientRegisteredExpiring('c3', '2025-12-31T00:00:00.000Z'));
  log.add('oauthclient-c3', clientUsed('c3', 'x3'));
  log.add('oauthclient-c4', clientRegisteredExpiring('c4', '2026-01-01T00:00:00.000Z'));
  log.add('oauthclient-c5', clientRegisteredExpiring('c5', '2025-12-30T00:00:00.000Z'));
  log.add('oauthclient-c5', clientExpired('c5', '2025-12-30T00:00:00.000Z'));
  log.add('oauthclient-c6', clientRegisteredExpiring('c6', '2026-01-03T00:00:00.000Z'));
  log.add('oauthclient-c7', clientRegistered('c7', '2025-06-01T00:00:00.000Z'));
  return log;
}

/** Positions that follow `events` (for a batch built in another log). */
const positionAfter = (events: readonly Recorded[], i: number): string => positionOf(events.length + 1 + i);

async function snapshot(model: ReadModel) {
  const list = await model.listSites({ ...Q, includeHidden: true, limit: 500 });
  return {
    sites: list.all,
    quarantined: await model.listQuarantined(),
    keys: await model.listKeys(),
    connections: await model.listConnections(),
  };
}

const last = (events: readonly Recorded[]): string => events[events.length - 1]!.position;

/** The group tree as the store keeps it (every node), by path. */
async function storedTree(model: ReadModel): Promise<Map<string, TreeNodeDoc>> {
  const { nodes } = await model.siteTree();
  return new Map(nodes.map((n) => [n.node.path, n.node]));
}

/** The group tree made at once from the live sites the store lists: what the kept one must equal. */
async function treeFromListing(model: ReadModel): Promise<Map<string, TreeNodeDoc>> {
  const live = (await model.listSites({ ...Q, includeHidden: true, limit: 1 })).all;
  const entries = await Promise.all(
    live.map(async (d) => ({ group: d.group, slug: d.slug, entry: { slug: d.slug, revision: await model.streamRevision(streamOfPath(d.path)), hidden: d.meta.hidden } })),
  );
  const tree = applyTreeChanges(new Map(), entries) as Map<string, TreeNodeDoc>;
  return new Map([...tree].sort(([a], [b]) => (a < b ? -1 : 1)));
}

const sortedByPath = (tree: Map<string, TreeNodeDoc>) => new Map([...tree].filter(([path, node]) => path !== '' || node.live > 0).sort(([a], [b]) => (a < b ? -1 : 1)));

export function readModelContract(name: string, factory: ReadModelFactory, budget: ListBudget): void {
  describe(`ReadModel contract: ${name}`, () => {
    const opened: ReadModel[] = [];
    const open = async () => {
      const made = await factory();
      opened.push(made.model);
      return {
        model: made.model,
        another: async () => {
          const m = await made.another();
          opened.push(m);
          return m;
        },
      };
    };
    afterEach(async () => {
      for (const m of opened.splice(0)) await m.close();
    });

    it('applies a batch and stores its checkpoint with it', async () => {
      const { model } = await open();
      expect(await model.checkpoint()).toBeUndefined();
      expect(await model.streamRevision(streamOfPath('decks'))).toBe(-1);
      const log = world();
      await model.apply(log.events, last(log.events));
      expect(await model.checkpoint()).toBe(last(log.events));
      expect(await model.streamRevision(streamOfPath('gone'))).toBe(1);
      expect(await model.streamRevision('sequence-site')).toBe(0);
      const site = await model.getSite('decks/pr-6');
      expect(site).toMatchObject({ siteId: 2, group: 'decks', slug: 'pr-6', status: 'live', meta: { title: 'PR 6 preview' } });
      expect((await model.getSite('gone'))?.status).toBe('quarantined');
      expect(await model.getSite('nope')).toBeUndefined();
    });

    it('is idempotent: the same batch twice, and an older batch after a newer one', async () => {
      const { model } = await open();
      const log = world();
      await model.apply(log.events, last(log.events));
      const once = await snapshot(model);
      await model.apply(log.events, last(log.events));
      expect(await snapshot(model)).toEqual(once);
      log.site('decks', patched(1, meta('Decks renamed', { date: '2025-05-01' })));
      const newer = log.events.slice(-1);
      await model.apply(newer, last(newer));
      // Older events again (a page read twice), committed at the checkpoint already reached.
      await model.apply(log.events.slice(0, 5), last(log.events));
      expect((await model.getSite('decks'))?.meta.title).toBe('Decks renamed');
      expect(await model.streamRevision(streamOfPath('decks'))).toBe(1);
    });

    it('resumes after a crash between the update and the checkpoint', async () => {
      const log = world();
      log.site('decks', patched(1, meta('Patched', { tags: ['x'] })));
      log.site('gone', restored(8));
      log.add('key-2', keyRevoked(2));
      const events = log.events;
      const reference = (await open()).model;
      await reference.apply(events, last(events));

      const { model } = await open();
      // The documents reached event 12 but the stored checkpoint still says event 8: the projector re-reads from 8.
      await model.apply(events.slice(0, 12), events[7]!.position);
      expect(await model.checkpoint()).toBe(events[7]!.position);
      await model.apply(events.slice(8), last(events));
      expect(await snapshot(model)).toEqual(await snapshot(reference));
      expect(await model.checkpoint()).toBe(last(events));
    });

    it('keeps the group tree of the listing from the events, in small batches as after a crash, and its version', async () => {
      const { model, another } = await open();
      expect(await model.listingVersion()).toBe('');
      expect((await model.siteTree()).nodes).toEqual([]);
      const log = world();
      log.site('decks', patched(1, meta('Patched', { tags: ['x'], hidden: true })));
      log.site('gone', restored(8));
      log.site('decks/pr-7', quarantined(3));
      log.site('docs/app/v1', quarantined(5));
      log.site('docs/app/v1', purged(5));
      log.site('team/a/deep', published('team/a/deep', 10, revision('r10'), meta('Deep')));
      const events = log.events;
      // The documents reach event 14 while the checkpoint says 8; the projector goes on from 8.
      await model.apply(events.slice(0, 14), events[7]!.position);
      await model.apply(events.slice(8, 14), events[13]!.position);
      for (let i = 14; i < events.length; i += 2) {
        const batch = events.slice(i, i + 2);
        await model.apply(batch, last(batch));
      }
      const expected = await treeFromListing(model);
      expect(sortedByPath(await storedTree(model))).toEqual(expected);
      expect(expected.get('')).toMatchObject({ live: 7, visible: 5 });
      expect(expected.has('docs/app')).toBe(false); // its only site went to the trash, then was purged
      expect(sortedByPath(await storedTree(await another()))).toEqual(expected);

      // The version moves with a listed change and only then; a reader asks for what changed since.
      const version = await model.listingVersion();
      expect(version).not.toBe('');
      log.add('key-2', keyUsed(2, '2026-03-02T00:00:00.000Z'));
      await model.apply(log.events.slice(-1), last(log.events));
      expect(await model.listingVersion()).toBe(version);
      expect((await model.siteTree(version)).nodes).toEqual([]);
      log.site('team/a/deep', patched(10, meta('Deeper')));
      await model.apply(log.events.slice(-1), last(log.events));
      const moved = await model.siteTree(version);
      expect(moved.version > version).toBe(true);
      expect(await model.listingVersion()).toBe(moved.version);
      // The site's group alone: its ancestors' counts did not move.
      expect(moved.nodes.map((n) => n.node.path)).toEqual(['team/a']);
      expect(moved.nodes.every((n) => n.version === moved.version)).toBe(true);
      expect(sortedByPath(await storedTree(model))).toEqual(await treeFromListing(model));

      // The same events again change nothing.
      await model.apply(log.events, last(log.events));
      expect(await model.listingVersion()).toBe(moved.version);
      expect(sortedByPath(await storedTree(model))).toEqual(await treeFromListing(model));

      // The page alone and documents by path, as the listing reads them.
      for (const q of [Q, { ...Q, sort: 'title' as const, includeHidden: true, limit: 3, offset: 2 }]) {
        expect(paths(await model.sitePage(q))).toEqual(paths((await model.listSites(q)).page));
      }
      // Every match's address and revision, without documents, as a filtered listing's tree reads them.
      for (const q of [Q, { ...Q, includeHidden: true }, { ...Q, group: 'team' }, { ...Q, group: 'decks', includeHidden: true }, { ...Q, tag: 'slides' }, { ...Q, tag: 'preview', includeHidden: true }, { ...Q, q: 'a' }, { ...Q, q: 'e', group: 'team/a' }]) {
        const all = (await model.listSites(q)).all;
        const expected = await Promise.all(all.map(async (d) => ({ path: d.path, group: d.group, slug: d.slug, revision: await model.streamRevision(streamOfPath(d.path)) })));
        const byPath = (a: { path: string }, b: { path: string }) => (a.path < b.path ? -1 : 1);
        expect([...(await model.siteMatches(q))].sort(byPath), JSON.stringify(q)).toEqual(expected.sort(byPath));
        // Among given sites alone: those that match, absent and unmatched ones left out.
        const some = ['decks', 'team/a/deep', 'nope', 'secret'];
        expect([...(await model.siteMatches(q, some))].sort(byPath), JSON.stringify(q)).toEqual(expected.filter((r) => some.includes(r.path)).sort(byPath));
      }
      expect(await model.siteMatches(Q, [])).toEqual([]);
      expect(paths(await model.getSites(['decks', 'team/a/deep', 'nope', 'decks/pr-7'])).sort()).toEqual(['decks', 'decks/pr-7', 'team/a/deep']);

      // After a reset the tree is rebuilt by the replay.
      await model.reset();
      expect(await model.listingVersion()).toBe('');
      expect((await model.siteTree()).nodes).toEqual([]);
      for (let i = 0; i < log.events.length; i += 5) {
        const batch = log.events.slice(i, i + 5);
        await model.apply(batch, last(batch));
      }
      expect(sortedByPath(await storedTree(model))).toEqual(await treeFromListing(model));
    });

    it('lists live sites with filters, sort, paging and count', async () => {
      const { model } = await open();
      const log = world();
      await model.apply(log.events, last(log.events));

      const byDate = await model.listSites(Q);
      // Dated sites newest first (equal dates: newer update first), then undated by update time.
      expect(paths(byDate.page)).toEqual(['docsy', 'docs/app', 'docs/app/v1', 'decks', 'decks/pr-7', 'decks/pr-6']);
      expect(byDate.count).toBe(6);
      expect(paths(byDate.all)).toEqual(paths(byDate.page));

      expect(paths((await model.listSites({ ...Q, sort: 'title' })).page)).toEqual([
        'docs/app', 'decks', 'docsy', 'decks/pr-6', 'decks/pr-7', 'docs/app/v1',
      ]);
      expect(paths((await model.listSites({ ...Q, sort: 'slug' })).page)).toEqual([
        'docs/app', 'decks', 'docsy', 'decks/pr-6', 'decks/pr-7', 'docs/app/v1',
      ]);

      const page = await model.listSites({ ...Q, sort: 'slug', limit: 2, offset: 2 });
      expect(paths(page.page)).toEqual(['docsy', 'decks/pr-6']);
      expect(page.count).toBe(6);
      expect(page.all).toHaveLength(6);
      const beyond = await model.listSites({ ...Q, offset: 10 });
      expect(beyond.page).toEqual([]);
      expect(beyond.count).toBe(6);

      expect(paths((await model.listSites({ ...Q, includeHidden: true })).all)).toContain('secret');
      expect((await model.listSites({ ...Q, includeHidden: true })).count).toBe(7);
      expect(paths((await model.listSites({ ...Q, q: 'gone', includeHidden: true })).all)).toEqual([]);
    });

    it('filters by text, tag and group subtree', async () => {
      const { model } = await open();
      const log = world();
      await model.apply(log.events, last(log.events));
      const list = async (q: Partial<SiteQuery>) => paths((await model.listSites({ ...Q, sort: 'slug', ...q })).all).sort();

      expect(await list({ q: 'PREVIEW' })).toEqual(['decks/pr-6', 'decks/pr-7']); // title (case-insensitive) and tag
      expect(await list({ q: 'üse' })).toEqual(['docs/app']); // description, non-ASCII case folding
      expect(await list({ q: 'v1' })).toEqual(['docs/app/v1']); // slug
      expect(await list({ q: 'decks' })).toEqual(['decks', 'decks/pr-6', 'decks/pr-7']); // slug and group
      expect(await list({ q: 'lides' })).toEqual(['decks', 'decks/pr-6']); // tag substring; hidden excluded
      expect(await list({ q: 'lides', includeHidden: true })).toEqual(['decks', 'decks/pr-6', 'secret']);
      expect(await list({ q: '%' })).toEqual([]);
      expect(await list({ q: '_' })).toEqual([]);

      expect(await list({ tag: 'slides' })).toEqual(['decks', 'decks/pr-6']);
      expect(await list({ tag: 'slide' })).toEqual([]);
      expect(await list({ tag: 'Slides' })).toEqual([]);

      // The group subtree holds the flat site sharing its name, not a sibling with a common prefix.
      expect(await list({ group: 'decks' })).toEqual(['decks', 'decks/pr-6', 'decks/pr-7']);
      expect(await list({ group: 'docs' })).toEqual(['docs/app', 'docs/app/v1']);
      expect(await list({ group: 'docs/app' })).toEqual(['docs/app', 'docs/app/v1']);
      expect(await list({ group: 'doc' })).toEqual([]);
      expect(await list({ group: 'decks', tag: 'preview', q: '7' })).toEqual(['decks/pr-7']);
      expect(await list({ group: 'gone', includeHidden: true })).toEqual([]);
    });

    it('keeps quarantined sites out of listings and lists them in the trash', async () => {
      const { model } = await open();
      const log = world();
      log.site('docsy', quarantined(6), '2026-03-05T00:00:00.000Z');
      await model.apply(log.events, last(log.events));
      expect(paths((await model.listSites({ ...Q, includeHidden: true })).all)).not.toContain('docsy');
      const trash = await model.listQuarantined();
      expect(paths(trash)).toEqual(['docsy', 'gone']);
      expect(trash[0]).toMatchObject({ status: 'quarantined', deletedAt: '2026-03-05T00:00:00.000Z' });

      log.site('docsy', restored(6));
      log.site('gone', purged(8, [{ id: 'r8', manifest: 'm-r8' }]));
      await model.apply(log.events.slice(-2), last(log.events));
      expect(await model.listQuarantined()).toEqual([]);
      expect(await model.getSite('gone')).toBeUndefined();
      expect(await model.streamRevision(streamOfPath('gone'))).toBe(2);
      const back = await model.getSite('docsy');
      expect(back?.status).toBe('live');
      expect(back && 'deletedAt' in back).toBe(false);
      expect(paths((await model.listSites(Q)).all)).toContain('docsy');
    });

    it('looks a site up by custom domain (spec §15): live or in the trash, gone once detached or purged, moved with the domain', async () => {
      const { model, another } = await open();
      const log = world();
      log.site('docs/app', domainAttached(4, 'docs.acme.com'));
      log.site('docs/app', domainAttached(4, 'app.acme.com'));
      log.site('gone', domainAttached(8, 'gone.acme.com'));
      await model.apply(log.events, last(log.events));
      expect((await model.siteByDomain('docs.acme.com'))?.path).toBe('docs/app');
      expect((await model.siteByDomain('app.acme.com'))).toMatchObject({ path: 'docs/app', domains: ['app.acme.com', 'docs.acme.com'] });
      expect((await model.siteByDomain('gone.acme.com'))).toMatchObject({ path: 'gone', status: 'quarantined' });
      expect(await model.siteByDomain('acme.com')).toBeUndefined();
      expect(await model.siteByDomain('DOCS.ACME.COM')).toBeUndefined();
      expect((await model.getSite('docs/app'))?.domains).toEqual(['app.acme.com', 'docs.acme.com']);

      // Detached from one site and attached to another in one batch (the later site stored first would not matter).
      const before = log.events.length;
      log.site('docs/app', domainDetached(4, 'docs.acme.com'));
      log.site('decks', domainAttached(1, 'docs.acme.com'));
      log.site('gone', domainDetached(8, 'gone.acme.com', 'purged'));
      log.site('gone', purged(8, [{ id: 'r8', manifest: 'm-r8' }]));
      const batch = log.events.slice(before);
      await model.apply(batch, last(log.events));
      await model.apply(batch, last(log.events)); // delivered twice: nothing changes
      expect((await model.siteByDomain('docs.acme.com'))?.path).toBe('decks');
      expect((await model.getSite('docs/app'))?.domains).toEqual(['app.acme.com']);
      expect(await model.siteByDomain('gone.acme.com')).toBeUndefined();

      // A second handle (another instance) and a rebuild see the same.
      expect((await (await another()).siteByDomain('docs.acme.com'))?.path).toBe('decks');
      await model.reset();
      await model.apply(log.events, last(log.events));
      expect((await model.siteByDomain('docs.acme.com'))?.path).toBe('decks');
      expect((await model.siteByDomain('app.acme.com'))?.path).toBe('docs/app');
    });

    it('looks keys up by id and token hash', async () => {
      const { model } = await open();
      const log = world();
      await model.apply(log.events, last(log.events));
      expect(await model.getKeyByTokenHash('hash-2')).toMatchObject({ id: 2, revoked: false, lastUsedAt: '2026-03-01T00:00:00.000Z' });
      expect(await model.getKeyByTokenHash('hash-3')).toBeUndefined();
      expect((await model.getKey(1))?.admin).toBe(true);
      expect(await model.getKey(9)).toBeUndefined();
      expect((await model.listKeys()).map((k) => k.id)).toEqual([1, 2]);

      log.add('key-2', keyUsed(2, '2026-02-01T00:00:00.000Z'));
      log.add('key-2', keyRevoked(2));
      await model.apply(log.events.slice(-2), last(log.events));
      expect(await model.getKeyByTokenHash('hash-2')).toMatchObject({ revoked: true, lastUsedAt: '2026-03-01T00:00:00.000Z' });
    });

    it("merges a key's uses from its usage stream with those an old log recorded on the key's own stream", async () => {
      const { model, another } = await open();
      const log = world(); // key-2 carries a KeyUsed of 2026-03-01 on its own stream, as logs did before usage streams
      log.add('keyuse-2', keyUsed(2, '2026-02-15T00:00:00.000Z')); // older than the old-style use: ignored
      log.add('keyuse-1', keyUsed(1, '2026-04-01T00:00:00.000Z'));
      log.add('keyuse-1', keyUsed(1, '2026-04-03T00:00:00.000Z'));
      log.add('keyuse-1', keyUsed(1, '2026-04-02T00:00:00.000Z')); // two instances' uses, out of order
      await model.apply(log.events, last(log.events));
      expect(await model.getKey(1)).toMatchObject({ id: 1, admin: true, lastUsedAt: '2026-04-03T00:00:00.000Z' });
      expect(await model.getKeyByTokenHash('hash-1')).toMatchObject({ id: 1, lastUsedAt: '2026-04-03T00:00:00.000Z' });
      expect(await model.getKeyByTokenHash('hash-2')).toMatchObject({ id: 2, lastUsedAt: '2026-03-01T00:00:00.000Z' });
      expect((await model.listKeys()).map((k) => [k.id, k.lastUsedAt])).toEqual([
        [1, '2026-04-03T00:00:00.000Z'],
        [2, '2026-03-01T00:00:00.000Z'],
      ]);
      expect(await model.streamRevision('keyuse-1')).toBe(2);
      expect(await model.streamRevision('key-1')).toBe(0); // the key's own stream did not move

      // A newer use on the usage stream of a key whose old stream has uses too; then a revoke.
      log.add('keyuse-2', keyUsed(2, '2026-05-01T00:00:00.000Z'));
      log.add('key-2', keyRevoked(2));
      await model.apply(log.events.slice(-2), last(log.events));
      expect(await model.getKey(2)).toMatchObject({ revoked: true, lastUsedAt: '2026-05-01T00:00:00.000Z' });

      // Rebuilt from the log: the same keys.
      const before = await model.listKeys();
      await model.reset();
      expect(await model.getKey(1)).toBeUndefined();
      expect(await model.streamRevision('keyuse-1')).toBe(-1);
      for (let i = 0; i < log.events.length; i += 3) {
        const batch = log.events.slice(i, i + 3);
        await model.apply(batch, last(batch));
      }
      expect(await model.listKeys()).toEqual(before);
      expect(await (await another()).listKeys()).toEqual(before);
    });

    it('stores connections and OAuth clients', async () => {
      const { model } = await open();
      const log = world();
      log.add('connection-x2', connectionGranted('x2', 'c1', 'rt-9'));
      log.add('connection-x1', connectionRefreshed('x1', 'rt-2', 'rt-1'));
      log.add('connection-x2', connectionRevoked('x2'));
      await model.apply(log.events, last(log.events));
      expect(await model.getOAuthClient('c1')).toMatchObject({ clientId: 'c1', redirectUris: ['https://claude.example/cb'] });
      expect(await model.getOAuthClient('c2')).toBeUndefined();
      expect(await model.getConnection('x1')).toMatchObject({ refreshTokenHash: 'rt-2', previousRefreshHashes: ['rt-1'], revoked: false });
      expect((await model.getConnection('x2'))?.revoked).toBe(true);
      expect((await model.listConnections()).map((c) => c.id)).toEqual(['x1', 'x2']);
      expect(await model.getConnection('x3')).toBeUndefined();
    });

    it("merges a connection's uses from its usage stream with those an old log recorded on the connection's own stream", async () => {
      const { model, another } = await open();
      const log = world();
      log.add('connection-x2', connectionGranted('x2', 'c1', 'rt-9'));
      log.add('connection-x2', connectionUsed('x2', '2026-03-01T00:00:00.000Z')); // as logs did before usage streams
      log.add('connectionuse-x2', connectionUsed('x2', '2026-02-15T00:00:00.000Z')); // older than the old-style use: ignored
      log.add('connectionuse-x1', connectionUsed('x1', '2026-04-01T00:00:00.000Z'));
      log.add('connectionuse-x1', connectionUsed('x1', '2026-04-03T00:00:00.000Z'));
      log.add('connectionuse-x1', connectionUsed('x1', '2026-04-02T00:00:00.000Z')); // two instances' uses, out of order
      await model.apply(log.events, last(log.events));
      expect(await model.getConnection('x1')).toMatchObject({ id: 'x1', refreshTokenHash: 'rt-1', lastUsedAt: '2026-04-03T00:00:00.000Z' });
      expect(await model.getConnection('x2')).toMatchObject({ id: 'x2', lastUsedAt: '2026-03-01T00:00:00.000Z' });
      expect((await model.listConnections()).map((c) => [c.id, c.lastUsedAt])).toEqual([
        ['x1', '2026-04-03T00:00:00.000Z'],
        ['x2', '2026-03-01T00:00:00.000Z'],
      ]);
      expect(await model.streamRevision('connectionuse-x1')).toBe(2);
      expect(await model.streamRevision('connection-x1')).toBe(0); // the connection's own stream did not move

      // A newer use on the usage stream of a connection whose own stream has uses too; then a revoke.
      log.add('connectionuse-x2', connectionUsed('x2', '2026-05-01T00:00:00.000Z'));
      log.add('connection-x2', connectionRevoked('x2'));
      await model.apply(log.events.slice(-2), last(log.events));
      expect(await model.getConnection('x2')).toMatchObject({ revoked: true, lastUsedAt: '2026-05-01T00:00:00.000Z' });

      // Rebuilt from the log: the same connections.
      const before = await model.listConnections();
      await model.reset();
      expect(await model.getConnection('x1')).toBeUndefined();
      expect(await model.streamRevision('connectionuse-x1')).toBe(-1);
      for (let i = 0; i < log.events.length; i += 3) {
        const batch = log.events.slice(i, i + 3);
        await model.apply(batch, last(batch));
      }
      expect(await model.listConnections()).toEqual(before);
      expect(await (await another()).listConnections()).toEqual(before);
    });

    it('lists OAuth clients never used for a consent whose deadline has come, earliest first; forgets expired ones', async () => {
      const { model } = await open();
      const log = clientWorld();
      await model.apply(log.events, last(log.events));
      const ids = async (by: string, limit = 100) => (await model.listExpiredUnusedOAuthClients(by, limit)).map((c) => c.clientId);
      expect(await ids('2026-01-03T00:00:00.000Z')).toEqual(['c1', 'c4', 'c2']); // at the deadline counts
      expect(await ids('2026-01-03T00:00:00.000Z', 2)).toEqual(['c1', 'c4']);
      expect(await ids('2026-01-01T23:59:59.999Z')).toEqual([]);
      expect(await ids('2027-01-01T00:00:00.000Z')).toEqual(['c1', 'c4', 'c2', 'c6']); // never c7: no deadline
      expect((await model.listExpiredUnusedOAuthClients('2027-01-01T00:00:00.000Z', 1))[0]).toMatchObject({
        clientId: 'c1',
        redirectUris: ['https://claude.example/cb'],
        unusedExpiresAt: '2026-01-02T00:00:00.000Z',
      });
      const used = await model.getOAuthClient('c3');
      expect(used).toMatchObject({ clientId: 'c3', usedAt: expect.any(String) });
      expect(used).not.toHaveProperty('unusedExpiresAt');
      expect(await model.getOAuthClient('c7')).toMatchObject({ clientId: 'c7' });
      expect(await model.getOAuthClient('c5')).toBeUndefined();
      expect(await model.streamRevision('oauthclient-c5')).toBe(1);

      // Used later: no longer a candidate. Expired later: gone.
      const more = eventLog();
      more.add('oauthclient-c1', clientRegistered('c1'));
      more.add('oauthclient-c1', clientUsed('c1', 'x9'));
      more.add('oauthclient-c4', clientRegistered('c4'));
      more.add('oauthclient-c4', clientExpired('c4'));
      const tail = more.events.filter((e) => e.revision === 1).map((e, i) => ({ ...e, position: positionAfter(log.events, i) }));
      await model.apply(tail, last(tail));
      expect(await ids('2027-01-01T00:00:00.000Z')).toEqual(['c2', 'c6']);
      expect(await model.getOAuthClient('c4')).toBeUndefined();

      // Rebuilt from the log, the same answers.
      await model.reset();
      await model.apply([...log.events, ...tail], last(tail));
      expect(await ids('2027-01-01T00:00:00.000Z')).toEqual(['c2', 'c6']);
    });

    it('tells which blobs retained revisions still reference', async () => {
      const { model } = await open();
      const log = eventLog();
      // Two sites share blob `shared`; site a keeps an archived revision; site b has a favicon.
      await model.indexManifest('ma1', ['shared', 'a1-only']);
      await model.indexManifest('ma2', ['shared', 'a2-only']);
      await model.indexManifest('mb1', ['shared', 'b-only']);
      await model.indexManifest('mb1', ['shared', 'b-only']); // idempotent
      log.site('a', published('a', 1, revision('ra1', { manifest: 'ma1' }), meta('A')));
      log.site('a', archived(1, 'ra1'));
      log.site('a', published('a', 1, revision('ra2', { manifest: 'ma2' }), meta('A'), false));
      log.site('b', published('b', 2, revision('rb1', { manifest: 'mb1', favicon: 'fav-b' }), meta('B')));
      await model.apply(log.events, last(log.events));
      const all = ['shared', 'a1-only', 'a2-only', 'b-only', 'ma1', 'ma2', 'mb1', 'fav-b', 'unknown'];
      expect([...(await model.referencedBlobs(all))].sort()).toEqual(all.filter((h) => h !== 'unknown').sort());
      expect(await model.referencedBlobs([])).toEqual(new Set());

      log.site('a', dropped(1, 'ra1', 'ma1'));
      await model.apply(log.events.slice(-1), last(log.events));
      expect([...(await model.referencedBlobs(all))].sort()).toEqual(['a2-only', 'b-only', 'fav-b', 'ma2', 'mb1', 'shared']);

      log.site('b', quarantined(2));
      await model.apply(log.events.slice(-1), last(log.events));
      expect((await model.referencedBlobs(['fav-b', 'b-only'])).size).toBe(2); // quarantined content is kept

      log.site('b', purged(2, [{ id: 'rb1', manifest: 'mb1' }]));
      await model.apply(log.events.slice(-1), last(log.events));
      expect([...(await model.referencedBlobs(all))].sort()).toEqual(['a2-only', 'ma2', 'shared']);

      // A reset keeps the manifest index: replaying restores the same answer.
      await model.reset();
      expect(await model.referencedBlobs(all)).toEqual(new Set());
      await model.apply(log.events, last(log.events));
      expect([...(await model.referencedBlobs(all))].sort()).toEqual(['a2-only', 'ma2', 'shared']);
    });

    it('keeps what previews hold referenced, and lists sites by their first preview expiry (spec §14)', async () => {
      const { model } = await open();
      const log = eventLog();
      const preview = (siteId: number, name: string, manifest: string, expiresAt: string): SiteEvent => ({
        type: 'PreviewPublished',
        data: { siteId, name, created: true, revision: revision(`r-${manifest}`, { manifest }), meta: {}, expiresAt },
      });
      const gone = (siteId: number, name: string, manifest: string): SiteEvent => ({ type: 'PreviewRemoved', data: { siteId, name, revisionId: `r-${manifest}`, manifest } });
      await model.indexManifest('mp1', ['p1-only']);
      await model.indexManifest('mp2', ['p2-only']);
      log.site('a', published('a', 1, revision('ra1', { manifest: 'ma1' }), meta('A')));
      log.site('docs/b', published('docs/b', 2, revision('rb1', { manifest: 'mb1' }), meta('B')));
      log.site('a', preview(1, 'pr-1', 'mp1', '2026-03-01T00:00:00.000Z'));
      log.site('docs/b', preview(2, 'pr-2', 'mp2', '2026-02-01T00:00:00.000Z'));
      log.site('docs/b', quarantined(2));
      await model.apply(log.events, last(log.events));
      const all = ['mp1', 'mp2', 'p1-only', 'p2-only'];
      expect([...(await model.referencedBlobs(all))].sort()).toEqual(all);
      const paths = async (by: string, limit = 100) => (await model.listSitesWithExpiredPreviews(by, limit)).map((d) => d.path);
      // In the trash too: previews expire whatever the site's state.
      expect(await paths('2026-03-01T00:00:00.000Z')).toEqual(['docs/b', 'a']);
      expect(await paths('2026-03-01T00:00:00.000Z', 1)).toEqual(['docs/b']);
      expect(await paths('2026-01-31T23:59:59.999Z')).toEqual([]);
      log.site('a', gone(1, 'pr-1', 'mp1'));
      await model.apply(log.events.slice(-1), last(log.events));
      expect([...(await model.referencedBlobs(all))].sort()).toEqual(['mp2', 'p2-only']);
      expect(await paths('2027-01-01T00:00:00.000Z')).toEqual(['docs/b']);
      log.site('docs/b', purged(2, [{ id: 'rb1', manifest: 'mb1' }, { id: 'r-mp2', manifest: 'mp2' }]));
      await model.apply(log.events.slice(-1), last(log.events));
      expect(await model.referencedBlobs(all)).toEqual(new Set());
      expect(await paths('2027-01-01T00:00:00.000Z')).toEqual([]);
    });

    it('indexes a large manifest and answers for many candidates at once', async () => {
      const { model } = await open();
      const blobs = Array.from({ length: 10_000 }, (_, i) => `blob-${i}`);
      await model.indexManifest('big', blobs);
      await model.indexManifest('big', blobs);
      const log = eventLog();
      log.site('big', published('big', 1, revision('r1', { manifest: 'big' }), meta('Big')));
      await model.apply(log.events, last(log.events));
      const candidates = [...blobs.filter((_, i) => i % 2 === 0), ...Array.from({ length: 6_000 }, (_, i) => `other-${i}`), 'big'];
      const found = await model.referencedBlobs(candidates);
      expect(found.size).toBe(5_001);
      expect(found.has('blob-9998')).toBe(true);
      expect(found.has('blob-9999')).toBe(false);
      expect(found.has('other-1')).toBe(false);
    });

    it('keeps incremental deploys: the record with its digests, a compare-and-set status, expiry listing, deletion; reset keeps them', async () => {
      const { model, another } = await open();
      const deploy = (id: string, expiresAt: string): Deploy => ({
        id,
        address: { group: 'docs', slug: 'app' },
        meta: { title: 'App', tags: ['x'] },
        keyId: 7,
        manifest: `manifest-${id}`,
        files: 3,
        createdAt: '2026-01-01T00:00:00.000Z',
        expiresAt,
        status: 'open',
        uploadedBytes: 0,
      });
      const blobs: DeployBlob[] = [
        { hash: 'held', required: false, size: 10 },
        { hash: 'new-1', required: true },
        { hash: 'new-2', required: true },
      ];
      await model.createDeploy(deploy('d1', '2026-01-01T01:00:00.000Z'), blobs);
      await model.createDeploy(deploy('d2', '2026-01-01T00:30:00.000Z'), [{ hash: 'only-d2', required: true }]);
      expect(await model.getDeploy('d1')).toEqual(deploy('d1', '2026-01-01T01:00:00.000Z'));
      expect(await model.getDeploy('nope')).toBeUndefined();
      expect(await model.getDeployBlob('d1', 'held')).toEqual({ hash: 'held', required: false, size: 10 });
      expect(await model.getDeployBlob('d1', 'new-1')).toEqual({ hash: 'new-1', required: true });
      expect(await model.getDeployBlob('d1', 'only-d2')).toBeUndefined();
      expect(await model.listDeployBlobs('d1')).toEqual(blobs);

      // Another handle (another instance) sees the same deploy and changes its state.
      const other = await another();
      expect(await other.setDeployStatus('d1', 'open', 'publishing')).toBe(true);
      expect(await model.setDeployStatus('d1', 'open', 'publishing')).toBe(false); // one claim wins
      expect(await model.setDeployStatus('d1', 'publishing', 'open')).toBe(true);
      expect(await model.setDeployStatus('d1', 'open', 'published', '20260101T000000.000000001Z')).toBe(true);
      expect(await other.getDeploy('d1')).toMatchObject({ status: 'published', revision: '20260101T000000.000000001Z', meta: { title: 'App', tags: ['x'] } });

      expect((await model.listExpiredDeploys('2026-01-01T00:29:59.999Z', 10)).map((d) => d.id)).toEqual([]);
      expect((await model.listExpiredDeploys('2026-01-01T01:00:00.000Z', 10)).map((d) => d.id)).toEqual(['d2', 'd1']); // earliest first
      expect((await model.listExpiredDeploys('2027-01-01T00:00:00.000Z', 1)).map((d) => d.id)).toEqual(['d2']);

      await model.reset(); // deploys are coordination state, not projections
      expect((await model.getDeploy('d2'))?.id).toBe('d2');
      await model.deleteDeploy('d2');
      expect(await model.getDeploy('d2')).toBeUndefined();
      expect(await model.listDeployBlobs('d2')).toEqual([]);
      expect((await other.getDeploy('d1'))?.id).toBe('d1');
    });

    it('counts a deploy\'s uploads once each, within the byte limit, atomically across handles', async () => {
      const { model, another } = await open();
      const other = await another();
      const required = Array.from({ length: 20 }, (_, i) => ({ hash: `c-${i}`, required: true }));
      await model.createDeploy(
        { id: 'u1', address: { group: '', slug: 'up' }, meta: {}, keyId: 1, manifest: 'mu1', files: 21, createdAt: '2026-01-01T00:00:00.000Z', expiresAt: '2026-01-01T01:00:00.000Z', status: 'open', uploadedBytes: 0 },
        [...required, { hash: 'held', required: false, size: 5 }],
      );
      expect(await model.recordDeployUpload('u1', 'c-0', 100, 1000)).toBe('recorded');
      expect(await other.recordDeployUpload('u1', 'c-0', 100, 1000)).toBe('already'); // a retry is not counted twice
      expect(await model.recordDeployUpload('u1', 'held', 5, 1000)).toBe('already'); // not required: never counted
      expect(await model.getDeployBlob('u1', 'c-0')).toEqual({ hash: 'c-0', required: true, size: 100 });
      // 19 more uploads of 100 bytes race from two handles against a limit of 1000: exactly 9 fit.
      const results = await Promise.all(required.slice(1).map((b, i) => (i % 2 ? model : other).recordDeployUpload('u1', b.hash, 100, 1000)));
      expect(results.filter((r) => r === 'recorded')).toHaveLength(9);
      expect(results.filter((r) => r === 'over_limit')).toHaveLength(10);
      expect((await model.getDeploy('u1'))?.uploadedBytes).toBe(1000);
      // A refused upload left its digest unmarked: it is still missing, and can be recorded once room is made (never here).
      const unmarked = (await model.listDeployBlobs('u1')).filter((b) => b.required && b.size === undefined);
      expect(unmarked).toHaveLength(10);
      expect(await model.recordDeployUpload('u1', 'no-such-digest', 1, 1000)).toBe('already');
      expect(await model.recordDeployUpload('missing-deploy', 'c-1', 1, 1000)).toBe('closed');
      expect(await model.setDeployStatus('u1', 'open', 'published')).toBe(true);
      expect(await model.recordDeployUpload('u1', unmarked[0]!.hash, 0, 1000)).toBe('closed');
    });

    it('counts a deploy\'s digests and manifest as referenced until the deploy is deleted', async () => {
      const { model } = await open();
      const log = eventLog();
      await model.indexManifest('mr', ['site-file']);
      log.site('r', published('r', 1, revision('rr', { manifest: 'mr' }), meta('R')));
      await model.apply(log.events, last(log.events));
      await model.createDeploy(
        { id: 'g1', address: { group: '', slug: 'r' }, meta: {}, keyId: 1, manifest: 'deploy-manifest', files: 2, createdAt: '2026-01-01T00:00:00.000Z', expiresAt: '2026-01-01T01:00:00.000Z', status: 'open', uploadedBytes: 0 },
        [{ hash: 'uploaded', required: true }, { hash: 'site-file', required: false, size: 1 }],
      );
      const all = ['site-file', 'uploaded', 'deploy-manifest', 'mr', 'unknown'];
      expect([...(await model.referencedBlobs(all))].sort()).toEqual(['deploy-manifest', 'mr', 'site-file', 'uploaded']);
      await model.deleteDeploy('g1');
      expect([...(await model.referencedBlobs(all))].sort()).toEqual(['mr', 'site-file']);
    });

    it('hands a lease to one holder at a time and lets another take it over after expiry', async () => {
      const { model, another } = await open();
      const other = await another();
      expect(await model.tryLease('projector', 'A', 60_000)).toBe(true);
      expect(await other.tryLease('projector', 'B', 60_000)).toBe(false);
      expect(await model.tryLease('projector', 'A', 60_000)).toBe(true); // renewal
      expect(await other.tryLease('other-job', 'B', 60_000)).toBe(true); // names are independent
      await other.releaseLease('projector', 'B'); // not the holder: nothing happens
      expect(await other.tryLease('projector', 'B', 60_000)).toBe(false);
      await model.releaseLease('projector', 'A');
      expect(await other.tryLease('projector', 'B', 1)).toBe(true);
      await new Promise((r) => setTimeout(r, 5)); // let the 1 ms lease lapse
      expect(await model.tryLease('projector', 'A', 60_000)).toBe(true);
      expect(await other.tryLease('projector', 'B', 60_000)).toBe(false);
      await model.reset(); // leases are coordination state, not projections
      expect(await other.tryLease('projector', 'B', 60_000)).toBe(false);
    });

    it('names a lease\'s holder and lets a lease be taken over from a holder known to be gone, only from that one', async () => {
      const { model, another } = await open();
      const other = await another();
      expect(await model.leaseHolder('projector')).toBeUndefined();
      expect(await other.takeOverLease('projector', 'A', 'B', 60_000)).toBe(false); // nobody holds it: nothing to take over
      expect(await model.leaseHolder('projector')).toBeUndefined();
      expect(await model.tryLease('projector', 'A', 60_000)).toBe(true);
      expect(await other.leaseHolder('projector')).toBe('A');
      expect(await other.takeOverLease('projector', 'C', 'B', 60_000)).toBe(false); // A holds it, not C
      expect(await other.leaseHolder('projector')).toBe('A');
      // A's minute is not up, but B knows A stopped.
      expect(await other.takeOverLease('projector', 'A', 'B', 60_000)).toBe(true);
      expect(await model.leaseHolder('projector')).toBe('B');
      expect(await model.tryLease('projector', 'A', 60_000)).toBe(false); // A is out, B's lease runs
      expect(await other.tryLease('projector', 'B', 60_000)).toBe(true); // renewed as B's own
      expect(await model.takeOverLease('projector', 'A', 'C', 60_000)).toBe(false); // taken once, not twice
      await other.releaseLease('projector', 'B');
      expect(await model.leaseHolder('projector')).toBeUndefined();
    });

    it('rebuilds the same listing after reset and replay', async () => {
      const { model, another } = await open();
      const log = world();
      log.site('decks/pr-6', archived(2, 'r2'));
      log.site('decks/pr-6', published('decks/pr-6', 2, revision('r2b'), meta('PR 6 v2', { tags: ['preview'] }), false));
      log.site('decks/pr-6', rolledBack(2, 'r2', 'r2b'));
      log.site('gone', purged(8));
      log.site('gone', published('gone', 9, revision('r9'), meta('Back again')));
      await model.apply(log.events, last(log.events));
      const before = await snapshot(model);
      expect((await model.getSite('gone'))?.siteId).toBe(9);
      await model.reset();
      expect(await model.checkpoint()).toBeUndefined();
      expect((await model.listSites(Q)).count).toBe(0);
      expect(await model.getKeyByTokenHash('hash-1')).toBeUndefined();
      expect(await model.streamRevision(streamOfPath('decks'))).toBe(-1);
      // Replay in small batches, as the projector does.
      for (let i = 0; i < log.events.length; i += 4) {
        const batch = log.events.slice(i, i + 4);
        await model.apply(batch, last(batch));
      }
      expect(await snapshot(model)).toEqual(before);
      // A second handle on the same store sees the same data.
      expect(await snapshot(await another())).toEqual(before);
    });

    it('lists among 10,000 sites quickly', async () => {
      const { model } = await open();
      const log = eventLog();
      const groups = ['', 'docs', 'decks', 'team/a', 'team/b', 'x/y'];
      for (let i = 0; i < 10_000; i++) {
        const g = groups[i % groups.length]!;
        const path = g ? `${g}/s${i}` : `s${i}`;
        const extra = { description: `Site ${i} of the benchmark, with a description of some length.`, tags: [`t${i % 20}`, 'common'], hidden: i % 50 === 0 };
        log.site(path, published(path, i + 1, revision(`r${i}`), meta(`Site number ${i}`, i % 3 ? { ...extra, date: `2025-${String((i % 12) + 1).padStart(2, '0')}-01` } : extra)));
      }
      for (let i = 0; i < log.events.length; i += 1000) {
        const batch = log.events.slice(i, i + 1000);
        await model.apply(batch, last(batch));
      }
      const queries: Partial<SiteQuery>[] = [
        {}, { sort: 'title' }, { sort: 'slug', offset: 5000 }, { q: 'number 12' }, { tag: 't3' }, { group: 'team' }, { q: 'zzz' }, { includeHidden: true, group: 'docs', sort: 'title' },
      ];
      for (const q of queries) await model.listSites({ ...Q, ...q }); // warm up
      const measure = async () => {
        const wall: number[] = [];
        const cpu: number[] = [];
        for (let round = 0; round < 8; round++) {
          for (const q of queries) {
            const c = process.cpuUsage();
            const t = performance.now();
            const result = await model.listSites({ ...Q, ...q });
            wall.push(performance.now() - t);
            const used = process.cpuUsage(c);
            cpu.push((used.user + used.system) / 1000);
            expect(result.count).toBe(result.all.length);
          }
        }
        const pick = (times: number[], p: number) => [...times].sort((a, b) => a - b)[Math.ceil(times.length * p) - 1]!;
        return { wall: { p50: pick(wall, 0.5), p99: pick(wall, 0.99) }, cpu: { p50: pick(cpu, 0.5), p99: pick(cpu, 0.99) }, n: wall.length };
      };
      expect((await model.listSites(Q)).count).toBe(9_800);
      expect((await model.listSites({ ...Q, group: 'team', tag: 't3' })).count).toBe(167);
      // Up to three measurements, the best must fit: a burst of load (or a GC pause) is not the adapter's latency.
      let best = { p50: Infinity, p99: Infinity };
      for (let attempt = 1; attempt <= 3; attempt++) {
        const m = await measure();
        console.log(
          `${name}: listSites over 10,000 sites (${m.n} queries): wall p50 ${m.wall.p50.toFixed(1)} ms, p99 ${m.wall.p99.toFixed(1)} ms; ` +
            `cpu p50 ${m.cpu.p50.toFixed(1)} ms, p99 ${m.cpu.p99.toFixed(1)} ms`,
        );
        const chosen = m[budget.clock];
        if (chosen.p99 < best.p99) best = chosen;
        if (best.p50 < budget.p50Ms && best.p99 < budget.p99Ms) break;
      }
      expect(best.p50).toBeLessThan(budget.p50Ms);
      expect(best.p99).toBeLessThan(budget.p99Ms);
    }, 60_000);
  });
}

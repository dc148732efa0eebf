/**
 * The unfiltered listing is made from the group tree the read model keeps from the events
 * and the instance renders in compressed pieces (app/queries/listing-tree.ts); filtered ones
 * from their matches, kept and brought up to date from the tree's changes, in kept chunks
 * (app/queries/filtered-tree.ts). Whatever happens to the sites, their bytes must be exactly
 * those of the listing made whole from every matching document, for every audience, and a
 * reader's tag must move when that reader's answer changes and only then.
 */
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishSite } from '../../app/publish/publish-site.ts';
import { FilteredTrees } from '../../app/queries/filtered-tree.ts';
import { listSites, siteQuery } from '../../app/queries/list-sites.ts';
import { ListingTree } from '../../app/queries/listing-tree.ts';
import { patchSite } from '../../app/site-lifecycle/patch.ts';
import { purgeSite } from '../../app/site-lifecycle/purge.ts';
import { restoreSite } from '../../app/site-lifecycle/restore.ts';
import { unpublishSite } from '../../app/site-lifecycle/unpublish.ts';
import { parseQuery } from '../../app/contract/parse.ts';
import { SiteQueryParams } from '../../app/contract/site-query.ts';
import type { Identity } from '../../domain/auth.ts';
import { prng } from '../bench/support.ts';
import { admin, files, openApp, viewer, type AppHarness } from '../support/app.ts';

let app: AppHarness;
beforeAll(() => {
  app = openApp();
});
afterAll(() => app.close());

/** Both ways of making the listing for one reader and query. */
async function both(who: Identity, params: Record<string, string>): Promise<{ incremental: string; whole: string; tag: string }> {
  const input = parseQuery(SiteQueryParams, params);
  const answer = await listSites(app.deps, who, input);
  const incremental = gunzipSync(await answer.body('gzip')).toString('utf8');
  const whole = app.deps.shapes.listBody(await app.deps.queries.listSites(siteQuery(input, who === admin)), who).toString('utf8');
  expect((await answer.body('identity')).toString('utf8')).toBe(incremental);
  return { incremental, whole, tag: await answer.tag() };
}

const PATHS = ['docs', 'docs/app', 'docs/api', 'docs/app/v1', 'docs/app/v2', 'team/a/x', 'team/a/y', 'team/b/z', 'team', 'solo', 'x/y/z', 'x/y'];

describe('the listing from kept pieces (the unfiltered tree, filtered chunks)', () => {
  it('has the bytes of the listing made whole, for every reader, after every kind of change', async () => {
    const rand = prng(7);
    const pick = <T,>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
    const state = new Map<string, 'live' | 'trash'>();
    const readers: [string, Identity, Record<string, string>][] = [
      ['viewer', viewer, {}],
      ['admin', admin, {}],
      ['admin, hidden', admin, { hidden: 'true' }],
      ['admin, hidden, page 2 by title', admin, { hidden: 'true', sort: 'title', limit: '3', offset: '2' }],
      // Filtered: the tree of the matches from kept chunks (FilteredTrees).
      ['viewer, group team', viewer, { group: 'team' }],
      ['admin, hidden, group docs/app', admin, { hidden: 'true', group: 'docs/app' }],
      ['viewer, a site path as group', viewer, { group: 'x/y' }],
      ['admin, hidden, tag a', admin, { hidden: 'true', tag: 'a' }],
      ['viewer, q p', viewer, { q: 'p' }],
      ['admin, q + tag + group, by slug', admin, { q: '1', tag: 'b', group: 'docs', sort: 'slug', limit: '2' }],
    ];
    let lastTag = '';
    let lastBody = '';
    for (let step = 0; step < 60; step++) {
      const path = pick(PATHS);
      const cut = path.lastIndexOf('/');
      const [group, slug] = cut < 0 ? ['', path] : [path.slice(0, cut), path.slice(cut + 1)];
      const now = state.get(path);
      const roll = rand();
      if (now === undefined || (now === 'live' && roll < 0.3)) {
        await publishSite(app.deps, admin, { meta: { group, slug, title: `T${step}`, ...(rand() < 0.3 ? { hidden: true } : {}) }, files: files({ 'index.html': `${path} ${step}` }) });
        state.set(path, 'live');
      } else if (now === 'live' && roll < 0.6) {
        await patchSite(app.deps, admin, { site: path, patch: rand() < 0.5 ? { hidden: rand() < 0.5 } : { title: `P${step}`, tags: [pick(['a', 'b'])] } });
      } else if (now === 'live') {
        await unpublishSite(app.deps, admin, { site: path });
        state.set(path, 'trash');
      } else if (roll < 0.5) {
        await restoreSite(app.deps, admin, { site: path });
        state.set(path, 'live');
      } else {
        await purgeSite(app.deps, admin, { site: path });
        state.delete(path);
      }
      for (const [label, who, params] of readers) {
        const { incremental, whole, tag } = await both(who, params);
        expect(incremental, `step ${step} (${path}), ${label}`).toBe(whole);
        if (label === 'viewer') {
          // The tag names the viewer's own bytes: it moves when they changed and only then (not
          // for a purge from the trash, nor for a change to a hidden site the viewer never sees).
          if (incremental !== lastBody) expect(tag, `step ${step}: the viewer's answer changed`).not.toBe(lastTag);
          else expect(tag, `step ${step}: the viewer's answer is as it was`).toBe(lastTag);
          lastTag = tag;
          lastBody = incremental;
        }
      }
    }
  }, 120_000);

  it('brings a kept filter up to date from the sites changed since, asking the read model about those alone', async () => {
    const asked: (readonly string[] | undefined)[] = [];
    const queries = app.deps.queries;
    const bytes = (doc: Parameters<typeof app.deps.shapes.json>[0], a: boolean) => app.deps.shapes.json(doc, a);
    const tree = new ListingTree(queries, bytes);
    const trees = new FilteredTrees({ getSites: (p) => queries.getSites(p), siteMatches: (q, paths) => (asked.push(paths), queries.siteMatches(q, paths)) }, tree, bytes);
    const query = siteQuery(parseQuery(SiteQueryParams, { tag: 'kept' }), true);
    const paths = async () => [...(await trees.matches(query)).refs()].map((r) => r.path).sort();
    for (const slug of ['k1', 'k2', 'k3']) await publishSite(app.deps, admin, { meta: { group: 'kept', slug, title: slug, tags: ['kept'] }, files: files({ 'index.html': slug }) });
    expect(await paths()).toEqual(['kept/k1', 'kept/k2', 'kept/k3']);
    expect(asked).toEqual([undefined]);

    await patchSite(app.deps, admin, { site: 'kept/k2', patch: { tags: ['other'] } });
    await unpublishSite(app.deps, admin, { site: 'kept/k3' });
    await publishSite(app.deps, admin, { meta: { group: 'kept/deeper', slug: 'k4', title: 'k4', tags: ['kept'] }, files: files({ 'index.html': 'k4' }) });
    expect(await paths()).toEqual(['kept/deeper/k4', 'kept/k1']);
    expect(asked.slice(1).map((p) => [...(p ?? ['(all)'])].sort())).toEqual([['kept/deeper/k4', 'kept/k2', 'kept/k3']]);

    // A group that lost its last site: its sites count as changed.
    await unpublishSite(app.deps, admin, { site: 'kept/deeper/k4' });
    expect(await paths()).toEqual(['kept/k1']);
    expect([...(asked[2] ?? [])]).toEqual(['kept/deeper/k4']);
    expect(await paths()).toEqual(['kept/k1']);
    expect(asked).toHaveLength(3);
  });
});

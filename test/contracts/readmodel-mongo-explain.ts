/**
 * Every query of the MongoDB read model is served by an index (issue 32): against a real
 * server (SITES_MONGO_URL), with a projected history in the store, `explain()` of each query
 * as the adapter runs it must show an index scan and neither a collection scan nor a sort
 * in memory (a `SORT` stage; merging the sorted runs of an `$in`, `SORT_MERGE`, is fine).
 */
import { MongoClient, type Db, type Document } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseName, openMongoReadModel } from '../../host/readmodel/mongo.ts';
import {
  clientByIdQuery,
  connectionByIdQuery,
  connectionsQuery,
  expiredUnusedClientsQuery,
  keyByIdQuery,
  keyByTokenQuery,
  keysQuery,
  listingVersionQuery,
  liveSitesQuery,
  withUsePipeline,
  quarantinedQuery,
  SITE_REF_PROJECTION,
  siteByDomainQuery,
  siteByPathQuery,
  siteListQuery,
  siteMatchesAmongQuery,
  SITE_MATCH_PROJECTION,
  treeSinceQuery,
  type FindSpec,
  type TreeFindSpec,
} from '../../host/readmodel/mongo-queries.ts';
import type { ReadModel, SiteQuery } from '../../projections/read-model.ts';
import { history, recordAll } from './readmodel-history.ts';
import { withDatabase } from './readmodel-mongo.ts';

/** Every `stage` named anywhere in an explain answer (classic and slot-based plans alike). */
function stagesOf(node: unknown, out: Document[] = []): Document[] {
  if (Array.isArray(node)) for (const n of node) stagesOf(n, out);
  else if (node && typeof node === 'object') {
    const doc = node as Document;
    if (typeof doc.stage === 'string') out.push(doc);
    for (const [key, value] of Object.entries(doc)) if (key !== 'slotBasedPlan') stagesOf(value, out);
  }
  return out;
}

/** Why a plan is not served by an index, or undefined when it is. */
export function planProblem(explained: Document): string | undefined {
  const planned = stagesOf(explained.queryPlanner?.winningPlan ?? explained.stages ?? explained);
  const names = planned.map((s) => String(s.stage));
  if (names.includes('COLLSCAN')) return `collection scan: ${names.join(' < ')}`;
  if (names.includes('SORT')) return `sort in memory: ${names.join(' < ')}`;
  for (const lookup of planned.filter((s) => s.stage === 'EQ_LOOKUP')) {
    if (lookup.strategy !== 'IndexedLoopJoin') return `$lookup joined by ${String(lookup.strategy)}, not an index`;
  }
  for (const stage of (explained.stages ?? []) as Document[]) {
    if (stage.$lookup && Number(stage.collectionScans ?? 0) > 0) return '$lookup scanned the collection';
  }
  if (!names.some((n) => /IXSCAN|DISTINCT_SCAN|IDHACK|EXPRESS/.test(n))) return `no index scan: ${names.join(' < ')}`;
  return undefined;
}

export function mongoExplainSuite(url: string): void {
  describe('MongoDB read model: every query is served by an index', () => {
    const name = `sites_explain_${process.pid}_${Date.now().toString(36)}`;
    const dbUrl = withDatabase(url, name);
    let client: MongoClient;
    let db: Db;
    let model: ReadModel;

    beforeAll(async () => {
      model = await openMongoReadModel(dbUrl);
      const { events } = recordAll(history(1_500, 4, 7));
      for (let i = 0; i < events.length; i += 2_000) {
        const batch = events.slice(i, i + 2_000);
        await model.apply(batch, batch[batch.length - 1]!.position);
      }
      await model.indexManifest('m-explain', ['b1', 'b2']);
      await model.createDeploy(
        { id: 'd-explain', address: { group: '', slug: 'x' }, meta: {}, keyId: 1, manifest: 'dm', files: 1, createdAt: '2026-01-01T00:00:00.000Z', expiresAt: '2026-01-01T01:00:00.000Z', status: 'open', uploadedBytes: 0 },
        [{ hash: 'b1', required: true }],
      );
      client = await new MongoClient(url).connect();
      db = client.db(databaseName(dbUrl));
    }, 120_000);
    afterAll(async () => {
      await model?.close();
      await db?.dropDatabase();
      await client?.close();
    });

    const explainFind = (spec: FindSpec, projection?: Document, collection = 'streams') => {
      const cursor = db.collection(collection).find(spec.filter as Document, { hint: spec.hint, ...(spec.sort ? { sort: spec.sort } : {}), ...(projection ? { projection } : {}) });
      return cursor.explain('executionStats');
    };
    const expectIndexed = async (label: string, explained: Promise<Document>) => expect(planProblem(await explained), label).toBeUndefined();

    const listings: Partial<SiteQuery>[] = [
      {}, { sort: 'title' }, { sort: 'slug' }, { includeHidden: true }, { tag: 'red' }, { tag: 'red', sort: 'title', includeHidden: true },
      { group: 'g3' }, { group: 'g3/sub1', sort: 'slug' }, { q: 'charlie' }, { q: 'charlie', tag: 'blue', group: 'g2' }, { q: 'a\u0000b' },
    ];
    it.each(listings.map((q) => [JSON.stringify(q), q] as const))('lists sites %s', async (_, partial) => {
      const spec = siteListQuery({ sort: 'date', includeHidden: false, limit: 50, offset: 0, ...partial });
      await expectIndexed('list', explainFind(spec, SITE_REF_PROJECTION));
    });

    it.each(listings.map((q) => [JSON.stringify(q), q] as const))('reads the matches of %s, whole and among given sites', async (_, partial) => {
      const query: SiteQuery = { sort: 'date', includeHidden: false, limit: 50, offset: 0, ...partial };
      await expectIndexed('matches', explainFind(siteListQuery(query), SITE_MATCH_PROJECTION));
      await expectIndexed('matches among sites', explainFind(siteMatchesAmongQuery(query, ['s0', 'g3/sub1/s1']), SITE_MATCH_PROJECTION));
    });

    it('reads the documents of a listing, a site, the trash, keys, connections and clients', async () => {
      await expectIndexed('site docs by path', explainFind({ filter: { path: { $in: ['s0', 'g1/sub1/s1'] } }, hint: siteByPathQuery('').hint }, { _id: 0, path: 1, revision: 1, doc: 1 }));
      await expectIndexed('site', explainFind(siteByPathQuery('s5')));
      await expectIndexed('trash', explainFind(quarantinedQuery()));
      await expectIndexed('site by custom domain', explainFind(siteByDomainQuery('docs.example.com')));
      await expectIndexed('client', explainFind(clientByIdQuery('c1')));
      await expectIndexed('expired clients', explainFind(expiredUnusedClientsQuery('2027-01-01T00:00:00.000Z')));
      await expectIndexed('streams of a batch', explainFind({ filter: { _id: { $in: ['key-1', 'site-s0'] } }, hint: '_id_' }));
      for (const spec of [keyByIdQuery(1), keyByTokenQuery('token-1'), keysQuery()]) {
        const explained = db.collection('streams').aggregate(withUsePipeline('key', spec, 'streams'), { hint: spec.hint }).explain('executionStats');
        await expectIndexed(`keys ${JSON.stringify(spec.filter)}`, explained);
      }
      for (const spec of [connectionByIdQuery('x1'), connectionsQuery()]) {
        const explained = db.collection('streams').aggregate(withUsePipeline('connection', spec, 'streams'), { hint: spec.hint }).explain('executionStats');
        await expectIndexed(`connections ${JSON.stringify(spec.filter)}`, explained);
      }
    });

    it('reads the group tree by version and rebuilds it from an index', async () => {
      const tree = (spec: TreeFindSpec) => explainFind(spec as unknown as FindSpec, undefined, 'site_tree');
      await expectIndexed('tree since', tree(treeSinceQuery('000000000100')));
      await expectIndexed('listing version', tree(listingVersionQuery('000000000100')));
      await expectIndexed('tree nodes by path', explainFind({ filter: { _id: { $in: ['', 'g1'] } }, hint: '_id_' }, undefined, 'site_tree'));
      await expectIndexed('live sites (tree rebuild)', explainFind(liveSitesQuery(), { _id: 0, grp: 1, slug: 1, revision: 1, hidden: 1 }));
    });

    it('answers blob references and deploys from indexes', async () => {
      const distinct = (collection: string, key: string, query: Document) =>
        db.command({ explain: { distinct: collection, key, query }, verbosity: 'executionStats' });
      await expectIndexed('retained manifests', distinct('streams', 'manifests', { manifests: { $in: ['m-r1-0', 'x'] } }));
      await expectIndexed('retained favicons', distinct('streams', 'favicons', { favicons: { $in: ['f-r1-0', 'x'] } }));
      await expectIndexed('deploy digests', distinct('deploy_blobs', 'h', { h: { $in: ['b1', 'x'] } }));
      await expectIndexed('deploy manifests', distinct('deploys', 'manifest', { manifest: { $in: ['dm', 'x'] } }));
      await expectIndexed('manifest files', db.collection('manifest_blobs').aggregate([{ $match: { blobs: { $in: ['b1'] } } }]).explain('executionStats'));
      await expectIndexed('digests of a deploy', db.collection('deploy_blobs').find({ d: 'd-explain' }).sort({ h: 1 }).explain('executionStats'));
      await expectIndexed('expired deploys', db.collection('deploys').find({ expiresAt: { $lte: '2027-01-01T00:00:00.000Z' } }).sort({ expiresAt: 1, _id: 1 }).explain('executionStats'));
    });
  });
}

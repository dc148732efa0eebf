/**
 * The MongoDB adapter's query translation, checked without a server: the filter and sort
 * that `siteListQuery` builds are evaluated by a small reference evaluator of the
 * operators it uses, over the documents `toStreamDocument` stores, and must select and
 * order exactly what the SQLite adapter does for the same events.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { databaseName } from '../../host/readmodel/mongo.ts';
import { toStreamDocument, type StreamDocument } from '../../host/readmodel/mongo-documents.ts';
import { expiredUnusedClientsQuery, siteByDomainQuery, siteListQuery, siteMatchesAmongQuery } from '../../host/readmodel/mongo-queries.ts';
import { openSqliteReadModel } from '../../host/readmodel/sqlite.ts';
import type { OAuthClientDoc, SiteDoc, StreamRecord } from '../../projections/documents.ts';
import { projectBatch } from '../../projections/project.ts';
import type { SiteQuery } from '../../projections/read-model.ts';
import { clientWorld, world } from './readmodel-contract.ts';
import { domainAttached } from './readmodel-events.ts';
import { planProblem } from './readmodel-mongo-explain.ts';
import { withDatabase } from './readmodel-mongo.ts';

type Doc = Record<string, unknown>;

function matchValue(value: unknown, cond: unknown): boolean {
  if (Array.isArray(value) && !(cond !== null && typeof cond === 'object' && !(cond instanceof RegExp) && '$exists' in cond)) {
    return value.some((v) => matchValue(v, cond));
  }
  if (cond instanceof RegExp) return typeof value === 'string' && cond.test(value);
  if (cond !== null && typeof cond === 'object' && !Array.isArray(cond)) {
    return Object.entries(cond).every(([op, arg]) => {
      switch (op) {
        case '$in':
          return (arg as unknown[]).some((a) => matchValue(value, a));
        case '$gte':
          return typeof value === typeof arg && (value as string) >= (arg as string);
        case '$lt':
          return typeof value === typeof arg && (value as string) < (arg as string);
        case '$lte':
          return typeof value === typeof arg && (value as string) <= (arg as string);
        case '$exists':
          return (value !== undefined) === arg;
        default:
          throw new Error(`operator ${op} is not known to the reference evaluator`);
      }
    });
  }
  return value === cond;
}

function matches(doc: Doc, filter: Doc): boolean {
  return Object.entries(filter).every(([key, cond]) => {
    if (key === '$and') return (cond as Doc[]).every((f) => matches(doc, f));
    if (key === '$or') return (cond as Doc[]).some((f) => matches(doc, f));
    if (key.startsWith('$')) throw new Error(`operator ${key} is not known to the reference evaluator`);
    return matchValue(doc[key], cond);
  });
}

const order = (v: unknown): [number, unknown] => [typeof v === 'boolean' ? 1 : 0, v];
function sortDocs(docs: Doc[], sort: Record<string, 1 | -1>): Doc[] {
  return [...docs].sort((a, b) => {
    for (const [key, dir] of Object.entries(sort)) {
      const [ta, va] = order(a[key]);
      const [tb, vb] = order(b[key]);
      const c = ta - tb || ((va as string) < (vb as string) ? -1 : (va as string) > (vb as string) ? 1 : 0);
      if (c !== 0) return c * dir;
    }
    return 0;
  });
}

const dir = mkdtempSync(join(tmpdir(), 'readmodel-mongo-query-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('MongoDB site-list translation', () => {
  const log = world();
  const records = projectBatch(log.events, new Map<string, StreamRecord>());
  const stored: StreamDocument[] = [...records.values()].map(toStreamDocument);

  const queries: Partial<SiteQuery>[] = [
    {}, { sort: 'title' }, { sort: 'slug' }, { includeHidden: true }, { q: 'PREVIEW' }, { q: 'üse' }, { q: 'lides' },
    { q: 'lides', includeHidden: true }, { q: '%' }, { q: '.' }, { q: 'a(b' }, { tag: 'slides' }, { tag: 'Slides' },
    { group: 'decks' }, { group: 'docs' }, { group: 'docs/app' }, { group: 'doc' }, { group: 'decks', tag: 'preview', q: '7' },
  ];

  it('selects and orders what the SQLite adapter does', async () => {
    const sqlite = openSqliteReadModel(join(dir, 'ref.db'));
    await sqlite.apply(log.events, log.events[log.events.length - 1]!.position);
    try {
      for (const partial of queries) {
        const query: SiteQuery = { sort: 'date', includeHidden: false, limit: 50, offset: 0, ...partial };
        const { filter, sort } = siteListQuery(query);
        const got = sortDocs(stored.filter((d) => matches(d as Doc, filter as Doc)) as Doc[], sort as Record<string, 1 | -1>);
        const expected = (await sqlite.listSites(query)).all;
        expect(got.map((d) => (d.doc as SiteDoc).path), JSON.stringify(partial)).toEqual(expected.map((d) => d.path));
        // siteMatches among given sites: the same filter on those paths alone.
        const some = ['decks', 'decks/pr-6', 'docs/app', 'nope', 'secret'];
        const among = siteMatchesAmongQuery(query, some).filter;
        const gotAmong = stored.filter((d) => matches(d as Doc, among as Doc)).map((d) => (d.doc as SiteDoc).path);
        expect(gotAmong.sort(), JSON.stringify(partial)).toEqual((await sqlite.siteMatches(query, some)).map((r) => r.path).sort());
      }
    } finally {
      await sqlite.close();
    }
  });

  it('stores query fields only for the kind of document a stream holds', () => {
    const byId = new Map(stored.map((d) => [d._id, d]));
    expect(byId.get('site-docs.app')).toMatchObject({ path: 'docs/app', grp: 'docs', undated: false, manifests: ['m-r4'], favicons: [] });
    expect(byId.get('site-gone')).toMatchObject({ status: 'quarantined', deletedAt: expect.any(String) });
    expect(byId.get('key-2')).toMatchObject({ keyId: 2, tokenHash: 'hash-2' });
    expect(byId.get('key-2')).not.toHaveProperty('path');
    expect(byId.get('sequence-site')).toEqual({ _id: 'sequence-site', kind: 'sequence', revision: 0, doc: null });
    const use = toStreamDocument({ stream: 'keyuse-2', kind: 'keyuse', revision: 3, doc: { id: 2, lastUsedAt: '2026-03-01T00:00:00.000Z' } });
    expect(use).toEqual({ _id: 'keyuse-2', kind: 'keyuse', revision: 3, doc: { id: 2, lastUsedAt: '2026-03-01T00:00:00.000Z' }, usedKeyId: 2 });
    const tombstone = toStreamDocument({ stream: 'site-x', kind: 'site', revision: 4, doc: null });
    expect(tombstone).toEqual({ _id: 'site-x', kind: 'site', revision: 4, doc: null });
  });

  it('finds a site by custom domain as the SQLite adapter does, and stores no domains field for a site without any', async () => {
    const withDomains = world();
    withDomains.site('docs/app', domainAttached(4, 'docs.acme.com'));
    withDomains.site('docs/app', domainAttached(4, 'app.acme.com'));
    withDomains.site('gone', domainAttached(8, 'gone.acme.com'));
    const docs = [...projectBatch(withDomains.events, new Map<string, StreamRecord>()).values()].map(toStreamDocument);
    expect(docs.find((d) => d._id === 'site-docs.app')).toMatchObject({ domains: ['app.acme.com', 'docs.acme.com'] });
    expect(docs.find((d) => d._id === 'site-decks')).not.toHaveProperty('domains');
    const sqlite = openSqliteReadModel(join(dir, 'domains.db'));
    await sqlite.apply(withDomains.events, withDomains.events.at(-1)!.position);
    try {
      for (const name of ['docs.acme.com', 'app.acme.com', 'gone.acme.com', 'acme.com', 'other.test']) {
        const found = docs.filter((d) => matches(d as Doc, siteByDomainQuery(name).filter as Doc)).map((d) => (d.doc as SiteDoc).path);
        expect(found, name).toEqual([(await sqlite.siteByDomain(name))?.path].filter(Boolean));
      }
    } finally {
      await sqlite.close();
    }
  });

  it('reads the database from the URL', () => {
    expect(databaseName('mongodb://127.0.0.1:27017/sites')).toBe('sites');
    expect(databaseName('mongodb://u:p%2F@a:1,b:2/prod?replicaSet=rs0')).toBe('prod');
    expect(databaseName('mongodb://127.0.0.1:27017')).toBe('sites');
    expect(databaseName('mongodb+srv://cluster.example/?retryWrites=true')).toBe('sites');
    expect(withDatabase('mongodb://a:1,b:2/prod?replicaSet=rs0', 't1')).toBe('mongodb://a:1,b:2/t1?replicaSet=rs0');
    expect(withDatabase('mongodb://a:1', 't1')).toBe('mongodb://a:1/t1');
  });
});

describe('MongoDB expired-unused-client translation', () => {
  const log = clientWorld();
  const stored: StreamDocument[] = [...projectBatch(log.events, new Map<string, StreamRecord>()).values()].map(toStreamDocument);

  it('selects and orders what the SQLite adapter does', async () => {
    const sqlite = openSqliteReadModel(join(dir, 'clients.db'));
    await sqlite.apply(log.events, log.events[log.events.length - 1]!.position);
    try {
      for (const by of ['2025-01-01T00:00:00.000Z', '2026-01-02T00:00:00.000Z', '2026-01-01T23:59:59.999Z', '2026-01-03T00:00:00.000Z', '2027-01-01T00:00:00.000Z']) {
        const { filter, sort } = expiredUnusedClientsQuery(by);
        const got = sortDocs(stored.filter((d) => matches(d as Doc, filter as Doc)) as Doc[], sort as Record<string, 1 | -1>);
        const expected = await sqlite.listExpiredUnusedOAuthClients(by, 100);
        expect(got.map((d) => (d.doc as OAuthClientDoc).clientId), by).toEqual(expected.map((c) => c.clientId));
      }
    } finally {
      await sqlite.close();
    }
  });

  it('carries the deadline of an unused client only; a used, old or expired one has none', () => {
    const byId = new Map(stored.map((d) => [d._id, d]));
    expect(byId.get('oauthclient-c1')).toMatchObject({ clientId: 'c1', unusedExpiresAt: '2026-01-02T00:00:00.000Z' });
    for (const id of ['c3', 'c7']) {
      expect(byId.get(`oauthclient-${id}`)).toMatchObject({ clientId: id });
      expect(byId.get(`oauthclient-${id}`)).not.toHaveProperty('unusedExpiresAt');
    }
    expect(byId.get('oauthclient-c5')).toEqual({ _id: 'oauthclient-c5', kind: 'oauthclient', revision: 1, doc: null });
  });
});

describe('the explain check itself', () => {
  // The shapes servers answer with: classic plans nest inputStage(s); slot-based ones (7.0+) put the tree under queryPlan.
  const classic = (stage: object) => ({ queryPlanner: { winningPlan: stage } });
  it('accepts index scans, merged sorted runs and _id lookups', () => {
    expect(planProblem(classic({ stage: 'PROJECTION_COVERED', inputStage: { stage: 'SORT_MERGE', inputStages: [{ stage: 'IXSCAN' }, { stage: 'IXSCAN' }] } }))).toBeUndefined();
    expect(planProblem(classic({ stage: 'FETCH', inputStage: { stage: 'IXSCAN', indexName: 'sites_live_by_date' } }))).toBeUndefined();
    expect(planProblem({ queryPlanner: { winningPlan: { queryPlan: { stage: 'FETCH', inputStage: { stage: 'IXSCAN' } }, slotBasedPlan: { stages: 'COLLSCAN-looking text' } } } })).toBeUndefined();
    expect(planProblem(classic({ stage: 'EXPRESS_IXSCAN' }))).toBeUndefined();
  });
  it('refuses collection scans, sorts in memory and joins without an index', () => {
    expect(planProblem(classic({ stage: 'COLLSCAN' }))).toMatch(/collection scan/);
    expect(planProblem(classic({ stage: 'SORT', inputStage: { stage: 'FETCH', inputStage: { stage: 'IXSCAN' } } }))).toMatch(/sort in memory/);
    expect(planProblem({ queryPlanner: { winningPlan: { queryPlan: { stage: 'EQ_LOOKUP', strategy: 'NestedLoopJoin', inputStage: { stage: 'IXSCAN' } } } } })).toMatch(/\$lookup/);
    expect(planProblem({ stages: [{ $cursor: { queryPlanner: { winningPlan: { stage: 'IXSCAN' } } } }, { $lookup: {}, collectionScans: 1 }] })).toMatch(/\$lookup/);
    expect(planProblem(classic({ stage: 'FETCH' }))).toMatch(/no index scan/);
  });
});

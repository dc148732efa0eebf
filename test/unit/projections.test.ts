/**
 * Projection specs: given recorded events, the documents projectBatch builds. Every
 * scenario is delivered three ways (once; the same batch twice; each event twice in a
 * row) and must give the same records, because a projector may see an event again.
 */
import { describe, expect, it } from 'vitest';
import type { Recorded } from '../../domain/events.ts';
import type { ConnectionDoc, KeyDoc, OAuthClientDoc, SiteDoc, StreamRecord } from '../../projections/documents.ts';
import { kindOfStream, projectBatch } from '../../projections/project.ts';
import {
  ACTOR,
  archived,
  clientExpired,
  clientRegistered,
  clientUsed,
  connectionCodeRedeemed,
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
  published,
  purged,
  quarantined,
  restored,
  revision,
  rolledBack,
  streamOfPath,
} from '../contracts/readmodel-events.ts';

type Store = Map<string, StreamRecord>;

function deliver(store: Store, events: readonly Recorded[]): Store {
  const next = new Map(store);
  for (const [stream, record] of projectBatch(events, store)) next.set(stream, record);
  return next;
}

/** Projects `events` once, as a batch delivered twice, and one by one with each event twice; all must agree. */
function project(events: readonly Recorded[]): Store {
  const once = deliver(new Map(), events);
  const batchTwice = deliver(deliver(new Map(), events), events);
  const eachTwice = events.reduce((store, e) => deliver(deliver(store, [e]), [e, e]), new Map() as Store);
  expect(batchTwice).toEqual(once);
  expect(eachTwice).toEqual(once);
  return once;
}

const site = (store: Store, path: string) => store.get(streamOfPath(path))?.doc as SiteDoc | null | undefined;
const ids = (doc: SiteDoc | null | undefined) => doc && { live: doc.live.id, archived: doc.archived.map((r) => r.id) };

describe('site projection', () => {
  it('creates a live site on its first publish', () => {
    const log = eventLog();
    const e = log.site('docs/app', published('docs/app', 7, revision('r1', { favicon: 'fav' }), meta('App', { tags: ['a'], date: '2025-01-02' })));
    const store = project(log.events);
    expect(store.get(streamOfPath('docs/app'))).toEqual({
      stream: 'site-docs.app',
      kind: 'site',
      revision: 0,
      doc: {
        stream: 'site-docs.app',
        siteId: 7,
        group: 'docs',
        slug: 'app',
        path: 'docs/app',
        status: 'live',
        meta: { title: 'App', hidden: false, tags: ['a'], date: '2025-01-02' },
        // A publish recorded before permalinks carries no number: the projection counts it (spec §14).
        live: { ...revision('r1', { favicon: 'fav' }), number: 1 },
        lastNumber: 1,
        archived: [],
        createdAt: e.meta.at,
        updatedAt: e.meta.at,
        updatedBy: e.meta.actor,
      },
    });
  });

  it('replaces the live revision, keeping id and creation time; without versioning nothing is archived', () => {
    const log = eventLog();
    const first = log.site('demo', published('demo', 1, revision('r1'), meta('Demo')));
    const second = log.site('demo', published('demo', 1, revision('r2'), meta('Demo 2'), false));
    const doc = site(project(log.events), 'demo')!;
    expect(ids(doc)).toEqual({ live: 'r2', archived: [] });
    expect(doc).toMatchObject({ siteId: 1, createdAt: first.meta.at, updatedAt: second.meta.at, meta: { title: 'Demo 2' } });
  });

  it('archives before replacing and drops the revision archived longest ago', () => {
    const log = eventLog();
    log.site('demo', published('demo', 1, revision('r1'), meta('Demo')));
    for (const [prev, next] of [['r1', 'r2'], ['r2', 'r3'], ['r3', 'r4']] as const) {
      log.site('demo', archived(1, prev));
      log.site('demo', published('demo', 1, revision(next), meta('Demo'), false));
    }
    log.site('demo', dropped(1, 'r1'));
    expect(ids(site(project(log.events), 'demo'))).toEqual({ live: 'r4', archived: ['r3', 'r2'] });
  });

  it('ignores an archive of a revision that is not live, and a drop of an unknown one', () => {
    const log = eventLog();
    log.site('demo', published('demo', 1, revision('r1'), meta('Demo')));
    log.site('demo', archived(1, 'r0'));
    log.site('demo', dropped(1, 'r9'));
    expect(ids(site(project(log.events), 'demo'))).toEqual({ live: 'r1', archived: [] });
  });

  it('swaps on rollback, and two rollbacks return to where they started', () => {
    const log = eventLog();
    log.site('demo', published('demo', 1, revision('r1'), meta('Demo')));
    log.site('demo', archived(1, 'r1'));
    log.site('demo', published('demo', 1, revision('r2'), meta('Demo'), false));
    log.site('demo', archived(1, 'r2'));
    log.site('demo', published('demo', 1, revision('r3'), meta('Demo'), false));
    const rolled = log.site('demo', rolledBack(1, 'r1', 'r3'));
    const afterOne = site(project(log.events), 'demo')!;
    expect(ids(afterOne)).toEqual({ live: 'r1', archived: ['r3', 'r2'] });
    expect(afterOne.updatedAt).toBe(rolled.meta.at);
    log.site('demo', rolledBack(1, 'r3', 'r1'));
    expect(ids(site(project(log.events), 'demo'))).toEqual({ live: 'r3', archived: ['r1', 'r2'] });
    log.site('demo', rolledBack(1, 'r1', 'r3'));
    log.site('demo', rolledBack(1, 'r3', 'r1'));
    expect(ids(site(project(log.events), 'demo'))).toEqual({ live: 'r3', archived: ['r1', 'r2'] });
    log.site('demo', rolledBack(1, 'nope', 'r3')); // unknown revision: nothing changes
    expect(ids(site(project(log.events), 'demo'))).toEqual({ live: 'r3', archived: ['r1', 'r2'] });
  });

  it('quarantines, restores exactly as it was, purges, and re-creates with a new id', () => {
    const log = eventLog();
    const created = log.site('demo', published('demo', 1, revision('r1'), meta('Demo')));
    const q = log.site('demo', quarantined(1));
    let doc = site(project(log.events), 'demo')!;
    expect(doc).toMatchObject({ status: 'quarantined', deletedAt: q.meta.at, updatedAt: q.meta.at, siteId: 1 });

    log.site('demo', restored(1));
    doc = site(project(log.events), 'demo')!;
    expect(doc.status).toBe('live');
    expect('deletedAt' in doc).toBe(false);
    expect(ids(doc)).toEqual({ live: 'r1', archived: [] });
    expect(doc.createdAt).toBe(created.meta.at);

    log.site('demo', quarantined(1));
    log.site('demo', purged(1, [{ id: 'r1', manifest: 'm-r1' }]));
    const purgedStore = project(log.events);
    expect(purgedStore.get(streamOfPath('demo'))).toEqual({ stream: 'site-demo', kind: 'site', revision: 4, doc: null });

    const again = log.site('demo', published('demo', 2, revision('r5'), meta('Demo again')));
    doc = site(project(log.events), 'demo')!;
    expect(doc).toMatchObject({ siteId: 2, status: 'live', createdAt: again.meta.at, meta: { title: 'Demo again' } });
    expect(ids(doc)).toEqual({ live: 'r5', archived: [] });
  });

  it('revives a quarantined site when it is published again, keeping the quarantined content archived', () => {
    const log = eventLog();
    const created = log.site('demo', published('demo', 1, revision('r1'), meta('Demo')));
    log.site('demo', quarantined(1));
    log.site('demo', archived(1, 'r1'));
    log.site('demo', published('demo', 1, revision('r2'), meta('Demo'), false));
    const doc = site(project(log.events), 'demo')!;
    expect(doc.status).toBe('live');
    expect('deletedAt' in doc).toBe(false);
    expect(doc).toMatchObject({ siteId: 1, createdAt: created.meta.at });
    expect(ids(doc)).toEqual({ live: 'r2', archived: ['r1'] });
  });

  it('patches metadata without touching content', () => {
    const log = eventLog();
    log.site('demo', published('demo', 1, revision('r1'), meta('Demo', { tags: ['x'], description: 'old' })));
    const p = log.site('demo', patched(1, meta('New title', { hidden: true })));
    const doc = site(project(log.events), 'demo')!;
    expect(doc.meta).toEqual({ title: 'New title', hidden: true });
    expect(doc.updatedAt).toBe(p.meta.at);
    expect(ids(doc)).toEqual({ live: 'r1', archived: [] });
  });

  it('keeps custom domains sorted through the trash and a restore; detach and purge remove them; updatedAt stays (spec §15)', () => {
    const log = eventLog();
    const p = log.site('demo', published('demo', 1, revision('r1'), meta('Demo')));
    log.site('demo', domainAttached(1, 'www.acme.com'));
    log.site('demo', domainAttached(1, 'docs.acme.com'));
    let doc = site(project(log.events), 'demo')!;
    expect(doc.domains).toEqual(['docs.acme.com', 'www.acme.com']);
    expect(doc.updatedAt).toBe(p.meta.at);
    log.site('demo', quarantined(1));
    expect(site(project(log.events), 'demo')!.domains).toEqual(['docs.acme.com', 'www.acme.com']);
    log.site('demo', restored(1));
    log.site('demo', domainDetached(1, 'www.acme.com'));
    log.site('demo', domainDetached(1, 'never.acme.com', 'unfinished')); // an attach that never landed: nothing to remove
    doc = site(project(log.events), 'demo')!;
    expect(doc.domains).toEqual(['docs.acme.com']);
    log.site('demo', domainDetached(1, 'docs.acme.com'));
    doc = site(project(log.events), 'demo')!;
    expect('domains' in doc).toBe(false);
    log.site('demo', domainAttached(1, 'docs.acme.com'));
    log.site('demo', quarantined(1));
    log.site('demo', domainDetached(1, 'docs.acme.com', 'purged'));
    log.site('demo', purged(1, [{ id: 'r1', manifest: 'm-r1' }]));
    log.site('demo', published('demo', 2, revision('r2'), meta('Again')));
    expect('domains' in site(project(log.events), 'demo')!).toBe(false);
  });

  it('skips an event at or below the applied revision even when it differs (a redelivery)', () => {
    const log = eventLog();
    log.site('demo', published('demo', 1, revision('r1'), meta('Demo')));
    const store = project(log.events);
    const stale = { ...log.events[0]!, data: { ...(log.events[0] as Recorded<ReturnType<typeof published>>).data, meta: meta('Other') } } as Recorded;
    expect(deliver(store, [stale])).toEqual(store);
  });

  it('keeps sites at different addresses apart (flat site and group of the same name)', () => {
    const log = eventLog();
    log.site('decks', published('decks', 1, revision('r1'), meta('Flat')));
    log.site('decks/pr-6', published('decks/pr-6', 2, revision('r2'), meta('In group')));
    log.site('decks', quarantined(1));
    const store = project(log.events);
    expect(site(store, 'decks')?.status).toBe('quarantined');
    expect(site(store, 'decks/pr-6')).toMatchObject({ status: 'live', group: 'decks', slug: 'pr-6' });
  });
});

describe('key projection', () => {
  it('issues, coalesces use (an older KeyUsed is ignored) and revokes', () => {
    const log = eventLog();
    const issued = log.add('key-3', keyIssued(3, 'h3', { expiresAt: '2027-01-01T00:00:00.000Z' }));
    log.add('key-3', keyUsed(3, '2026-05-02T00:00:00.000Z'));
    log.add('key-3', keyUsed(3, '2026-05-01T00:00:00.000Z'));
    let key = project(log.events).get('key-3')!.doc as KeyDoc;
    expect(key).toEqual({
      id: 3,
      name: 'key 3',
      admin: false,
      grants: [{ kind: 'group', target: 'docs', permissions: ['publish'] }],
      tokenHash: 'h3',
      createdAt: issued.meta.at,
      expiresAt: '2027-01-01T00:00:00.000Z',
      lastUsedAt: '2026-05-02T00:00:00.000Z',
      revoked: false,
      createdBy: ACTOR,
    });
    log.add('key-3', keyUsed(3, '2026-05-03T00:00:00.000Z'));
    const revoked = log.add('key-3', keyRevoked(3));
    key = project(log.events).get('key-3')!.doc as KeyDoc;
    // who revoked it and when, for the keys view's revoked list
    expect(key).toMatchObject({ revoked: true, lastUsedAt: '2026-05-03T00:00:00.000Z', revokedAt: revoked.meta.at, revokedBy: revoked.meta.actor });
    expect(project(log.events).get('key-3')!.revision).toBe(4);
  });

  it('leaves expiry out when the key never expires', () => {
    const log = eventLog();
    log.add('key-1', keyIssued(1, 'h1', { admin: true }));
    const key = project(log.events).get('key-1')!.doc as KeyDoc;
    expect('expiresAt' in key).toBe(false);
    expect(key.admin).toBe(true);
  });
});

describe('connection projection', () => {
  it('grants, rotates refresh tokens remembering the old ones, and revokes', () => {
    const log = eventLog();
    log.add('oauthclient-c1', clientRegistered('c1'));
    const granted = log.add('connection-x1', connectionGranted('x1', 'c1', 'rt1'));
    log.add('connection-x1', connectionRefreshed('x1', 'rt2', 'rt1'));
    const refreshed = log.add('connection-x1', connectionRefreshed('x1', 'rt3', 'rt2'));
    const revoked = log.add('connection-x1', connectionRevoked('x1'));
    const store = project(log.events);
    expect(store.get('connection-x1')!.doc as ConnectionDoc).toEqual({
      id: 'x1',
      clientId: 'c1',
      clientName: 'client c1',
      user: 'alice',
      grants: [{ kind: 'group', target: 'docs', permissions: ['publish'] }],
      refreshTokenHash: 'rt3',
      previousRefreshHashes: ['rt1', 'rt2'],
      createdAt: granted.meta.at,
      lastRefreshedAt: refreshed.meta.at,
      revoked: true,
      revokedAt: revoked.meta.at,
      revokedReason: 'user',
    });
    expect(store.get('oauthclient-c1')!.doc as OAuthClientDoc).toEqual({
      clientId: 'c1',
      name: 'client c1',
      redirectUris: ['https://claude.example/cb'],
      registeredAt: '2026-01-01T00:00:00.000Z',
    });
  });
});

describe('connection use', () => {
  it('records the latest use and never goes backwards (uses recorded by two instances out of order)', () => {
    const log = eventLog();
    log.add('connection-x2', connectionGranted('x2', 'c1', 'rt1'));
    log.add('connection-x2', connectionUsed('x2', '2026-03-01T10:00:00.000Z'));
    log.add('connection-x2', connectionUsed('x2', '2026-03-01T10:05:00.000Z'));
    log.add('connection-x2', connectionUsed('x2', '2026-03-01T10:01:00.000Z'));
    const store = project(log.events);
    expect((store.get('connection-x2')!.doc as ConnectionDoc).lastUsedAt).toBe('2026-03-01T10:05:00.000Z');
  });
});

describe('connection projection with an authorization code', () => {
  it('marks the code redeemed and records the first token pair', () => {
    const log = eventLog();
    const code = { hash: 'ch', challenge: 'pkce', redirectUri: 'https://claude.example/cb', expiresAt: '2026-01-01T00:10:00.000Z' };
    log.add('connection-x2', {
      type: 'ConnectionGranted',
      data: { id: 'x2', clientId: 'c1', clientName: 'client c1', user: 'bob', grants: [], refreshTokenHash: '', resource: 'https://h/mcp', code },
    });
    let doc = project(log.events).get('connection-x2')!.doc as ConnectionDoc;
    expect(doc).toMatchObject({ refreshTokenHash: '', resource: 'https://h/mcp', code: { ...code, redeemed: false } });
    expect('accessTokenHash' in doc).toBe(false);
    log.add('connection-x2', connectionCodeRedeemed('x2', 'rt1', 'at1'));
    log.add('connection-x2', { type: 'ConnectionRefreshed', data: { id: 'x2', refreshTokenHash: 'rt2', previousHash: 'rt1', accessTokenHash: 'at2' } });
    doc = project(log.events).get('connection-x2')!.doc as ConnectionDoc;
    expect(doc).toMatchObject({
      code: { ...code, redeemed: true },
      refreshTokenHash: 'rt2',
      previousRefreshHashes: ['rt1'],
      accessTokenHash: 'at2',
      accessExpiresAt: '2026-01-01T01:00:00.000Z',
      refreshExpiresAt: '2026-02-01T00:00:00.000Z',
      revoked: false,
    });
  });
});

describe('OAuth client projection', () => {
  it('keeps the deadline of an unused registration; the first consent lifts it, once', () => {
    const log = eventLog();
    log.add('oauthclient-c1', clientRegistered('c1', '2026-01-01T00:00:00.000Z', '2026-01-02T00:00:00.000Z'));
    expect(project(log.events).get('oauthclient-c1')!.doc).toMatchObject({ unusedExpiresAt: '2026-01-02T00:00:00.000Z' });
    const first = log.add('oauthclient-c1', clientUsed('c1', 'x1'));
    log.add('oauthclient-c1', clientUsed('c1', 'x2')); // never written twice by the decider; harmless if it were
    const store = project(log.events);
    expect(store.get('oauthclient-c1')).toEqual({
      stream: 'oauthclient-c1',
      kind: 'oauthclient',
      revision: 2,
      doc: { clientId: 'c1', name: 'client c1', redirectUris: ['https://claude.example/cb'], registeredAt: '2026-01-01T00:00:00.000Z', usedAt: first.meta.at },
    });
  });

  it('deletes the document of an expired registration, remembering only the revision', () => {
    const log = eventLog();
    log.add('oauthclient-c1', clientRegistered('c1', '2026-01-01T00:00:00.000Z', '2026-01-02T00:00:00.000Z'));
    log.add('oauthclient-c1', clientExpired('c1'));
    log.add('oauthclient-c2', clientRegistered('c2'));
    const store = project(log.events);
    expect(store.get('oauthclient-c1')).toEqual({ stream: 'oauthclient-c1', kind: 'oauthclient', revision: 1, doc: null });
    expect((store.get('oauthclient-c2')!.doc as OAuthClientDoc).clientId).toBe('c2');
  });

  it('a use or an expiry of a client without a document changes nothing', () => {
    const log = eventLog();
    log.add('oauthclient-c9', clientUsed('c9', 'x1'));
    log.add('oauthclient-c9', clientExpired('c9'));
    expect(project(log.events).get('oauthclient-c9')).toEqual({ stream: 'oauthclient-c9', kind: 'oauthclient', revision: 1, doc: null });
  });
});

describe('stream families', () => {
  it('records sequence streams without a document and ignores unknown streams', () => {
    const log = eventLog();
    log.add('sequence-site', { type: 'IdAllocated', data: { id: 1 } });
    log.add('sequence-site', { type: 'IdAllocated', data: { id: 2 } });
    log.add('$stats-x', { type: 'IdAllocated', data: { id: 1 } });
    log.add('other', { type: 'IdAllocated', data: { id: 1 } });
    const store = project(log.events);
    expect([...store.keys()]).toEqual(['sequence-site']);
    expect(store.get('sequence-site')).toEqual({ stream: 'sequence-site', kind: 'sequence', revision: 1, doc: null });
    expect(kindOfStream('site-docs.app')).toBe('site');
    expect(kindOfStream('nodash')).toBeUndefined();
  });
});

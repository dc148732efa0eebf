/** Pure domain pieces: paths and labels, stream names, revision ids, grants, tokens, key authentication. */
import { describe, expect, it } from 'vitest';
import { authenticateKey } from '../../domain/auth.ts';
import { ValidationError } from '../../domain/errors.ts';
import { can, grantCovers, validateGrant, type Grant } from '../../domain/grants.ts';
import {
  addressFromHostLabels,
  fullPath,
  hostLabels,
  isLabel,
  isWithin,
  parseGroup,
  parseSitePath,
  siteAddress,
} from '../../domain/paths.ts';
import { formatRevisionId, isRevisionId, nextRevisionId, parseRevisionId, revisionTime } from '../../domain/revision-id.ts';
import { isKeyStream, isSiteStream, keyStream, sequenceStream, siteStream } from '../../domain/streams.ts';
import { hashToken, looksLikeKeyToken, newKeyToken, sameHash } from '../../domain/tokens.ts';
import type { KeyDoc } from '../../projections/documents.ts';

describe('paths', () => {
  it('labels: lowercase letters, digits, inner hyphens, at most 63 characters', () => {
    for (const ok of ['a', 'docs', 'pr-6', '0', 'a1-b2', 'x'.repeat(63), 'xn--bcher-kva']) expect(isLabel(ok), ok).toBe(true);
    for (const bad of ['', 'Docs', '-a', 'a-', 'a_b', 'a.b', 'a b', 'x'.repeat(64), 'ü']) expect(isLabel(bad), bad).toBe(false);
  });

  it('groups have 0 to 2 labels', () => {
    expect(parseGroup('')).toEqual([]);
    expect(parseGroup('grp/sub')).toEqual(['grp', 'sub']);
    expect(() => parseGroup('a/b/c')).toThrow(ValidationError);
    expect(() => parseGroup('a//b')).toThrow(ValidationError);
    expect(() => parseGroup('A')).toThrow(ValidationError);
  });

  it('a group or slug written with dots (as the host name reads) says how to write it', () => {
    expect(() => parseGroup('previews.docs')).toThrow('labels are separated by "/", not "."; a site served at <slug>.previews.docs.<base> has the group "docs/previews"');
    expect(() => parseGroup('a.b.c')).toThrow(/separated by "\/", not "\."$/);
    expect(() => siteAddress('', 'app.docs')).toThrow('the site served at app.docs.<base> is "group": "docs", "slug": "app"');
    expect(() => siteAddress('', 'docs/app')).toThrow('"group": "docs", "slug": "app"');
    // Other mistakes keep the plain rule: no made-up suggestion.
    expect(() => parseGroup('Docs')).toThrow(/is not a valid label \(lowercase letters, digits and inner hyphens, at most 63 characters\)$/);
    expect(() => siteAddress('', 'App.docs')).toThrow(/at most 63 characters\)$/);
  });

  it('-- is reserved for preview and permalink hosts: no slug or group label holds it (spec §1)', () => {
    expect(() => siteAddress('', 'pr-1--app')).toThrow(/reserved for preview/);
    expect(() => siteAddress('a--b', 'app')).toThrow(/reserved for preview/);
    expect(() => parseSitePath('docs/xn--bcher-kva')).toThrow(ValidationError);
    expect(siteAddress('a-b', 'c-d')).toEqual({ group: 'a-b', slug: 'c-d' });
  });

  it('reserved action words are not valid slugs, but are fine as group labels', () => {
    for (const word of ['revisions', 'rollback', 'restore', 'purge', 'favicon', 'events', 'deleted']) {
      expect(() => siteAddress('', word), word).toThrow(/reserved/);
    }
    expect(siteAddress('events', 'app')).toEqual({ group: 'events', slug: 'app' });
  });

  it('parseSitePath: 1 to 3 labels, slug last, a trailing slash tolerated', () => {
    expect(parseSitePath('demo')).toEqual({ group: '', slug: 'demo' });
    expect(parseSitePath('docs/app')).toEqual({ group: 'docs', slug: 'app' });
    expect(parseSitePath('grp/sub/a')).toEqual({ group: 'grp/sub', slug: 'a' });
    expect(parseSitePath('docs/app/')).toEqual({ group: 'docs', slug: 'app' });
    for (const bad of ['', '/', 'a/b/c/d', 'docs//app', '/a/b', 'docs/App', 'docs/revisions', 'a/../b']) {
      expect(() => parseSitePath(bad), bad).toThrow(ValidationError);
    }
  });

  it('fullPath and hostLabels', () => {
    expect(fullPath({ group: '', slug: 'demo' })).toBe('demo');
    expect(fullPath({ group: 'grp/sub', slug: 'a' })).toBe('grp/sub/a');
    expect(hostLabels({ group: 'grp/sub', slug: 'a' })).toBe('a.sub.grp');
  });

  it('addressFromHostLabels reads the labels right to left', () => {
    expect(addressFromHostLabels('demo')).toEqual({ group: '', slug: 'demo' });
    expect(addressFromHostLabels('app.docs')).toEqual({ group: 'docs', slug: 'app' });
    expect(addressFromHostLabels('a.sub.grp')).toEqual({ group: 'grp/sub', slug: 'a' });
    for (const bad of ['', 'a.b.c.d', 'a..b', 'A.docs', 'a_b', `${'x'.repeat(64)}.docs`]) expect(addressFromHostLabels(bad), bad).toBeUndefined();
  });

  it('isWithin: equal or beneath, never a sibling sharing a prefix', () => {
    expect(isWithin('docs', 'docs')).toBe(true);
    expect(isWithin('docs/app', 'docs')).toBe(true);
    expect(isWithin('docs2', 'docs')).toBe(false);
    expect(isWithin('doc', 'docs')).toBe(false);
    expect(isWithin('anything', '')).toBe(true);
  });
});

describe('streams', () => {
  it('one stream per address, slashes become dots', () => {
    expect(siteStream({ group: '', slug: 'demo' })).toBe('site-demo');
    expect(siteStream({ group: 'docs', slug: 'app' })).toBe('site-docs.app');
    expect(siteStream({ group: 'grp/sub', slug: 'a' })).toBe('site-grp.sub.a');
    expect(keyStream(12)).toBe('key-12');
    expect(sequenceStream('site')).toBe('sequence-site');
    expect(isSiteStream('site-docs.app')).toBe(true);
    expect(isSiteStream('key-1')).toBe(false);
    expect(isKeyStream('key-1')).toBe(true);
  });

  it('a flat site and a group of the same name get different streams', () => {
    expect(siteStream({ group: '', slug: 'decks' })).not.toBe(siteStream({ group: 'decks', slug: 'pr-6' }));
  });
});

describe('revision ids', () => {
  const nanos = BigInt(Date.UTC(2026, 10, 21, 10, 15, 0, 123)) * 1_000_000n + 456_789n;

  it('format YYYYMMDDTHHMMSS.nnnnnnnnnZ and parse back', () => {
    const id = formatRevisionId(nanos);
    expect(id).toBe('20261121T101500.123456789Z');
    expect(isRevisionId(id)).toBe(true);
    expect(parseRevisionId(id)).toBe(nanos);
    expect(revisionTime(id)).toBe('2026-11-21T10:15:00.123Z');
    expect(formatRevisionId(0n)).toBe('19700101T000000.000000000Z');
  });

  it('round-trips across many instants', () => {
    for (let i = 0n; i < 200n; i++) {
      const n = nanos + i * 987_654_321_987n;
      expect(parseRevisionId(formatRevisionId(n))).toBe(n);
    }
  });

  it('rejects what is not an id', () => {
    for (const bad of ['current', '20261121T101500.123Z', '20261121T101500.123456789', '2026-11-21T10:15:00Z', '']) {
      expect(isRevisionId(bad), bad).toBe(false);
      expect(() => parseRevisionId(bad)).toThrow(ValidationError);
    }
  });

  it('nextRevisionId is nowNanos when ahead of the latest, else latest + 1 ns', () => {
    const latest = formatRevisionId(nanos);
    expect(nextRevisionId(nanos, undefined)).toBe(latest);
    expect(nextRevisionId(nanos + 5n, latest)).toBe(formatRevisionId(nanos + 5n));
    expect(nextRevisionId(nanos, latest)).toBe(formatRevisionId(nanos + 1n));
    expect(nextRevisionId(nanos - 10n ** 12n, latest)).toBe(formatRevisionId(nanos + 1n));
    expect(nextRevisionId(nanos + 1n, latest) > latest).toBe(true);
  });

  it('ids sort as strings in time order', () => {
    const ids = [nanos + 1n, nanos, nanos + 10n ** 9n, nanos - 1n].map(formatRevisionId);
    expect([...ids].sort()).toEqual([nanos - 1n, nanos, nanos + 1n, nanos + 10n ** 9n].map(formatRevisionId));
  });
});

describe('grants', () => {
  const site = (group: string, slug: string) => ({ group, slug });
  const group = (target: string): Grant => ({ kind: 'group', target, permissions: ['publish'] });
  const one = (target: string): Grant => ({ kind: 'site', target, permissions: ['publish'] });

  it('a group target owns its subtree and the flat site of the same name', () => {
    const g = group('docs');
    expect(grantCovers(g, site('', 'docs'))).toBe(true);
    expect(grantCovers(g, site('docs', 'app'))).toBe(true);
    expect(grantCovers(g, site('docs/v2', 'app'))).toBe(true);
    expect(grantCovers(g, site('', 'docs2'))).toBe(false);
    expect(grantCovers(g, site('docs2', 'app'))).toBe(false);
    expect(grantCovers(g, site('', 'other'))).toBe(false);
    expect(grantCovers(g, site('other', 'docs'))).toBe(false);
  });

  it('a two-label group target owns the site at that path and everything beneath', () => {
    const g = group('docs/app');
    expect(grantCovers(g, site('docs', 'app'))).toBe(true);
    expect(grantCovers(g, site('docs/app', 'x'))).toBe(true);
    expect(grantCovers(g, site('docs', 'other'))).toBe(false);
    expect(grantCovers(g, site('', 'docs'))).toBe(false);
  });

  it('a site target covers exactly one site', () => {
    const g = one('docs/app');
    expect(grantCovers(g, site('docs', 'app'))).toBe(true);
    expect(grantCovers(g, site('docs/app', 'x'))).toBe(false);
    expect(grantCovers(g, site('docs', 'web'))).toBe(false);
    expect(grantCovers(g, site('', 'docs'))).toBe(false);
    expect(grantCovers(one('demo'), site('', 'demo'))).toBe(true);
  });

  it('the empty group target is global', () => {
    for (const s of [site('', 'a'), site('x', 'b'), site('x/y', 'c')]) expect(grantCovers(group(''), s)).toBe(true);
  });

  it('validateGrant normalises permissions to the canonical order without duplicates', () => {
    expect(validateGrant({ kind: 'group', target: 'docs', permissions: ['purge', 'publish', 'purge'] })).toEqual({
      kind: 'group',
      target: 'docs',
      permissions: ['publish', 'purge'],
    });
    expect(validateGrant({ kind: 'group', target: '', permissions: ['patch'] }).target).toBe('');
    expect(validateGrant({ kind: 'site', target: 'docs/app', permissions: ['rollback'] }).kind).toBe('site');
    expect(validateGrant({ kind: 'group', target: 'a/b/c', permissions: ['publish'] }).target).toBe('a/b/c');
  });

  it('validateGrant rejects bad grants with a ValidationError', () => {
    const bad: unknown[] = [
      null,
      'docs',
      { kind: 'user', target: 'docs', permissions: ['publish'] },
      { kind: 'group', target: 3, permissions: ['publish'] },
      { kind: 'group', target: 'Docs', permissions: ['publish'] },
      { kind: 'group', target: 'a/b/c/d', permissions: ['publish'] },
      { kind: 'group', target: 'a_b', permissions: ['publish'] },
      { kind: 'site', target: '', permissions: ['publish'] },
      { kind: 'site', target: 'docs/revisions', permissions: ['publish'] },
      { kind: 'group', target: 'docs', permissions: [] },
      { kind: 'group', target: 'docs', permissions: 'publish' },
      { kind: 'group', target: 'docs', permissions: ['publish', 'delete'] },
    ];
    for (const raw of bad) expect(() => validateGrant(raw), JSON.stringify(raw)).toThrow(ValidationError);
  });

  it('can: admin everything, viewer nothing, grants only their capabilities on their targets', () => {
    const s = site('docs', 'app');
    expect(can({ kind: 'admin' }, 'purge', s)).toBe(true);
    expect(can({ kind: 'viewer' }, 'publish', s)).toBe(false);
    const holder = {
      kind: 'grants' as const,
      grants: [
        { kind: 'group' as const, target: 'docs', permissions: ['publish' as const] },
        { kind: 'site' as const, target: 'blog', permissions: ['unpublish' as const, 'purge' as const] },
      ],
    };
    expect(can(holder, 'publish', s)).toBe(true);
    expect(can(holder, 'unpublish', s)).toBe(false);
    expect(can(holder, 'purge', site('', 'blog'))).toBe(true);
    expect(can(holder, 'publish', site('', 'blog'))).toBe(false);
    expect(can({ kind: 'grants', grants: [] }, 'publish', s)).toBe(false);
  });

  it('preview: held alone it allows previews and nothing else; publish implies it (spec §14)', () => {
    const s = site('docs', 'app');
    const previewer = { kind: 'grants' as const, grants: [{ kind: 'group' as const, target: 'docs', permissions: ['preview' as const] }] };
    expect(can(previewer, 'preview', s)).toBe(true);
    for (const other of ['publish', 'unpublish', 'rollback', 'patch', 'purge'] as const) expect(can(previewer, other, s), other).toBe(false);
    expect(can(previewer, 'preview', site('blog', 'app'))).toBe(false);
    const publisher = { kind: 'grants' as const, grants: [{ kind: 'site' as const, target: 'docs/app', permissions: ['publish' as const] }] };
    expect(can(publisher, 'preview', s)).toBe(true);
    expect(can(publisher, 'preview', site('docs', 'web'))).toBe(false);
  });
});

describe('tokens', () => {
  it('key_ + 43 base64url characters (32 bytes), different every time', () => {
    const a = newKeyToken();
    expect(a).toMatch(/^key_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(a.slice(4), 'base64url')).toHaveLength(32);
    expect(looksLikeKeyToken(a)).toBe(true);
    expect(newKeyToken()).not.toBe(a);
    for (const bad of ['', 'key_', a.slice(0, -1), `${a}x`, a.replace('key_', 'kex_'), `key_${'+'.repeat(43)}`]) {
      expect(looksLikeKeyToken(bad), bad).toBe(false);
    }
  });

  it('hashToken is hex SHA-256; sameHash compares hashes', () => {
    expect(hashToken('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sameHash(hashToken('a'), hashToken('a'))).toBe(true);
    expect(sameHash(hashToken('a'), hashToken('b'))).toBe(false);
    expect(sameHash(hashToken('a'), hashToken('a').slice(0, 62))).toBe(false);
    expect(sameHash(hashToken('a'), '')).toBe(false);
  });
});

describe('authenticateKey', () => {
  const now = new Date('2026-06-01T00:00:00Z');
  const docs = new Map<string, KeyDoc>();
  const issue = (id: number, over: Partial<KeyDoc> = {}): string => {
    const token = newKeyToken();
    docs.set(hashToken(token), {
      id,
      name: `k${id}`,
      admin: false,
      grants: [{ kind: 'group', target: 'docs', permissions: ['publish'] }],
      tokenHash: hashToken(token),
      createdAt: '2026-01-01T00:00:00Z',
      revoked: false,
      ...over,
    });
    return token;
  };
  const lookup = async (hash: string) => docs.get(hash);
  const admin = issue(1, { admin: true, grants: [] });
  const scoped = issue(2);
  const revoked = issue(3, { revoked: true });
  const expired = issue(4, { expiresAt: '2026-05-31T23:59:59Z' });
  const expiresNow = issue(5, { expiresAt: now.toISOString() });
  const notYet = issue(6, { expiresAt: '2026-06-01T00:00:01Z' });

  it('an admin key is an admin', async () => {
    expect(await authenticateKey(admin, lookup, now)).toEqual({
      principal: { kind: 'admin' },
      actor: { kind: 'key', id: 1, name: 'k1' },
      via: 'key',
      keyId: 1,
      name: 'key k1',
    });
  });

  it('a scoped key carries its grants', async () => {
    const identity = await authenticateKey(scoped, lookup, now);
    expect(identity?.principal).toEqual({ kind: 'grants', grants: [{ kind: 'group', target: 'docs', permissions: ['publish'] }] });
    expect(identity?.keyId).toBe(2);
  });

  it('unknown, malformed, revoked and expired tokens all give nothing', async () => {
    expect(await authenticateKey(newKeyToken(), lookup, now)).toBeUndefined();
    expect(await authenticateKey('not-a-key', lookup, now)).toBeUndefined();
    expect(await authenticateKey(`${admin} `, lookup, now)).toBeUndefined();
    expect(await authenticateKey(revoked, lookup, now)).toBeUndefined();
    expect(await authenticateKey(expired, lookup, now)).toBeUndefined();
    expect(await authenticateKey(expiresNow, lookup, now)).toBeUndefined();
    expect((await authenticateKey(notYet, lookup, now))?.keyId).toBe(6);
  });

  it('never looks up a malformed token', async () => {
    let calls = 0;
    await authenticateKey('key_short', async () => (calls++, undefined), now);
    expect(calls).toBe(0);
  });

  it('rejects a lookup result whose stored hash does not match the token', async () => {
    const doc = docs.get(hashToken(scoped))!;
    expect(await authenticateKey(newKeyToken(), async () => doc, now)).toBeUndefined();
  });
});

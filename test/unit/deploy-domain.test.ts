import { describe, expect, it } from 'vitest';
import type { Identity } from '../../domain/auth.ts';
import {
  accessibleDeploy,
  assertDigest,
  assertOpen,
  missingDigests,
  parseDeployFiles,
  parseDeployManifest,
  serializeDeployManifest,
  type Deploy,
} from '../../domain/deploy/deploy.ts';
import { ConflictError, NotFoundError, TooLargeError, ValidationError } from '../../domain/errors.ts';

const d = (c: string) => c.repeat(64);

describe('a deploy\'s files (spec §10)', () => {
  it('normalises paths as archive entries are, sorts them, and needs index.html', () => {
    const files = parseDeployFiles({ 'b/./c.css': d('b'), './index.html': d('a'), 'a//x.js': d('c') }, 10);
    expect([...files]).toEqual([
      ['a/x.js', d('c')],
      ['b/c.css', d('b')],
      ['index.html', d('a')],
    ]);
    expect(() => parseDeployFiles({ 'page.html': d('a') }, 10)).toThrow(/index\.html/);
  });

  it.each([
    [{ 'index.html': d('a'), '../x': d('a') }, 10, ValidationError, /"\.\.\/x"/],
    [{ 'index.html': d('a'), 'x/': d('a') }, 10, ValidationError, /"x\/" ends with a slash/],
    [{ 'index.html': d('a'), x: d('a'), 'x/y': d('a') }, 10, ValidationError, /"x\/y" needs "x" to be a directory/],
    [{ 'index.html': d('A') }, 10, ValidationError, /"index\.html".*64 lowercase hex/],
    [{ 'index.html': 7 }, 10, ValidationError, /"index\.html"/],
    [[], 10, ValidationError, /JSON object/],
    [{ 'index.html': d('a'), a: d('a'), b: d('a') }, 2, TooLargeError, /3 paths, more than the limit of 2/],
  ])('refuses %j (at most %i files)', (files, limit, type, message) => {
    const attempt = () => parseDeployFiles(files, limit);
    expect(attempt).toThrow(type);
    expect(attempt).toThrow(message);
  });

  it('keeps the manifest as canonical bytes', () => {
    const a = serializeDeployManifest(new Map([['index.html', d('a')], ['a.css', d('b')]]));
    const b = serializeDeployManifest(new Map([['a.css', d('b')], ['index.html', d('a')]]));
    expect(a).toEqual(b);
    expect([...parseDeployManifest(a)]).toEqual([['a.css', d('b')], ['index.html', d('a')]]);
    expect(() => assertDigest('NOT')).toThrow(ValidationError);
  });
});

describe('who may use a deploy, and when', () => {
  const deploy: Deploy = {
    id: 'd1',
    address: { group: 'docs', slug: 'app' },
    meta: {},
    keyId: 7,
    manifest: d('m'),
    files: 1,
    createdAt: '2026-01-01T00:00:00.000Z',
    expiresAt: '2026-01-01T01:00:00.000Z',
    status: 'open',
    uploadedBytes: 0,
  };
  const key = (keyId: number, admin = false): Identity => ({
    principal: admin ? { kind: 'admin' } : { kind: 'grants', grants: [{ kind: 'group', target: 'docs', permissions: ['publish'] }] },
    actor: { kind: 'key', id: keyId, name: `k${keyId}` },
    via: 'key',
    keyId,
    name: `key k${keyId}`,
  });
  const before = new Date('2026-01-01T00:59:59.999Z');

  it('the key that created it, or an admin key, until it expires; anyone else: not found', () => {
    expect(accessibleDeploy(deploy, key(7), before, 'd1')).toBe(deploy);
    expect(accessibleDeploy(deploy, key(1, true), before, 'd1')).toBe(deploy);
    expect(() => accessibleDeploy(deploy, key(8), before, 'd1')).toThrow(NotFoundError);
    expect(() => accessibleDeploy(undefined, key(7), before, 'd1')).toThrow(NotFoundError);
    expect(() => accessibleDeploy(deploy, key(7), new Date(deploy.expiresAt), 'd1')).toThrow(NotFoundError);
  });

  it('uploads and the publish need it open; missing means required and not uploaded', () => {
    expect(() => assertOpen(deploy)).not.toThrow();
    expect(() => assertOpen({ ...deploy, status: 'published', revision: 'r' })).toThrow(ConflictError);
    expect(() => assertOpen({ ...deploy, status: 'publishing' })).toThrow(ConflictError);
    expect(missingDigests([{ hash: 'a', required: true }, { hash: 'b', required: true, size: 3 }, { hash: 'c', required: false, size: 1 }])).toEqual(['a']);
  });
});

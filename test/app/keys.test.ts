/**
 * app/keys/ in this process: keys are an admin's (or the operator's) to issue, list and
 * revoke; the token is answered once and only its hash is stored; a revoked key no longer
 * authenticates.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { authenticateKey } from '../../app/keys/authenticate-key.ts';
import { issueKey } from '../../app/keys/issue-key.ts';
import { listKeys } from '../../app/keys/list-keys.ts';
import { revokeKey } from '../../app/keys/revoke-key.ts';
import { ForbiddenError, NotFoundError, ValidationError } from '../../domain/errors.ts';
import { keyStream } from '../../domain/streams.ts';
import { admin, keyHolder, openApp, operator, viewer, type AppHarness } from '../support/app.ts';

const opened: AppHarness[] = [];
afterEach(async () => {
  for (const app of opened.splice(0)) await app.close();
});

describe('keys', () => {
  it('issues a key once with its token, which then authenticates with exactly its grants', async () => {
    const app = openApp();
    opened.push(app);
    const created = await issueKey(app.deps, operator, { name: ' ci ', grants: [{ kind: 'group', target: 'docs', permissions: ['publish', 'publish'] }] });
    expect(created).toMatchObject({ id: 1, name: 'ci', admin: false, grants: [{ kind: 'group', target: 'docs', permissions: ['publish'] }] });
    const stored = JSON.stringify((await app.events.readStream(keyStream(created.id))).events);
    expect(stored).not.toContain(created.key);
    const who = await authenticateKey(app.deps, created.key);
    expect(who).toMatchObject({ via: 'key', keyId: 1, principal: { kind: 'grants' }, actor: { kind: 'key', id: 1, name: 'ci' } });
    expect((await listKeys(app.deps, admin)).keys.map((k) => k.id)).toEqual([1]);
    await revokeKey(app.deps, admin, { id: '1' });
    expect(await authenticateKey(app.deps, created.key)).toBeUndefined();
    expect((await listKeys(app.deps, admin)).keys).toEqual([]);
    expect((await listKeys(app.deps, admin, { revoked: true })).keys).toMatchObject([{ id: 1, revoked_by: { kind: 'user', name: 'admin' } }]);
  });

  it('only admins: viewers and scoped keys are refused before anything is allocated', async () => {
    const app = openApp();
    opened.push(app);
    for (const who of [viewer, keyHolder([{ kind: 'group', target: '', permissions: ['publish'] }])]) {
      await expect(issueKey(app.deps, who, { name: 'x', admin: true })).rejects.toThrow(new ForbiddenError('this needs an admin'));
      await expect(listKeys(app.deps, who)).rejects.toBeInstanceOf(ForbiddenError);
      await expect(revokeKey(app.deps, who, { id: '1' })).rejects.toBeInstanceOf(ForbiddenError);
    }
    expect(await app.events.streamRevision('sequence-key')).toBe(-1);
  });

  it('refuses a key that would match nothing or is already expired, without spending an id; an unknown id is not found', async () => {
    const app = openApp();
    opened.push(app);
    await expect(issueKey(app.deps, admin, { name: 'bad', grants: [{ kind: 'group', target: 'Docs/', permissions: ['publish'] }] })).rejects.toBeInstanceOf(ValidationError);
    await expect(issueKey(app.deps, admin, { name: 'none' })).rejects.toThrow(/admin or at least one grant/);
    await expect(issueKey(app.deps, admin, { name: 'old', admin: true, expires_at: '2020-01-01' })).rejects.toThrow(/in the future/);
    expect(await app.events.streamRevision('sequence-key')).toBe(-1);
    await expect(revokeKey(app.deps, admin, { id: 'abc' })).rejects.toThrow(new NotFoundError('no key abc'));
    await expect(revokeKey(app.deps, admin, { id: '42' })).rejects.toBeInstanceOf(NotFoundError);
  });
});

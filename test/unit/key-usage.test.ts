/**
 * Key use is recorded beside the key's stream, never in it (issue 32, item 6): a key used
 * every minute for months must not make every command on it read months of events.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { issueKey } from '../../app/keys/issue-key.ts';
import { recordKeyUse as record } from '../../app/keys/record-key-use.ts';
import { revokeKey as revoke } from '../../app/keys/revoke-key.ts';
import { systemIdentity } from '../../domain/auth.ts';
import { keyStream, keyUsageStream } from '../../domain/streams.ts';
import { admin, openApp, type AppHarness } from '../support/app.ts';

const opened: AppHarness[] = [];
afterEach(async () => {
  for (const app of opened.splice(0)) await app.close();
});

function stack() {
  const app = openApp({ versioning: { enabled: false, keep: 0 } });
  opened.push(app);
  return { deps: app.deps, events: app.events, readModel: app.readModel };
}

const USAGE = systemIdentity('key-usage');
const recordKeyUse = (deps: AppHarness['deps'], id: number, at: Date) => record(deps, USAGE, { id, at });
const revokeKey = (deps: AppHarness['deps'], _actor: unknown, id: number) => revoke(deps, admin, { id: String(id) });

describe('recording key use', () => {
  it("appends each use to the key's usage stream; the key's own stream keeps its two events", async () => {
    const { deps, events, readModel } = stack();
    const key = await issueKey(deps, admin, { name: 'ci', admin: true, grants: [] });
    for (let minute = 0; minute < 5; minute++) await recordKeyUse(deps, key.id, new Date(Date.UTC(2026, 5, 1, 0, minute)));
    expect((await events.readStream(keyStream(key.id))).events.map((e) => e.type)).toEqual(['KeyIssued']);
    const uses = (await events.readStream(keyUsageStream(key.id))).events;
    expect(uses.map((e) => [e.type, e.data])).toEqual(
      [0, 1, 2, 3, 4].map((m) => ['KeyUsed', { id: key.id, at: new Date(Date.UTC(2026, 5, 1, 0, m)).toISOString() }]),
    );
    expect(uses[0]!.meta.actor).toEqual({ kind: 'system', name: 'key-usage' });
    expect((await readModel.getKey(key.id))?.lastUsedAt).toBe('2026-06-01T00:04:00.000Z');

    await revokeKey(deps, { kind: 'user', name: 'admin' }, key.id);
    expect((await events.readStream(keyStream(key.id))).events.map((e) => e.type)).toEqual(['KeyIssued', 'KeyRevoked']);
    // A revoked key records no use (a request raced the revoke: nothing more is written).
    await recordKeyUse(deps, key.id, new Date(Date.UTC(2026, 5, 1, 0, 9)));
    expect(await events.streamRevision(keyUsageStream(key.id))).toBe(4);
    expect(await readModel.getKey(key.id)).toMatchObject({ revoked: true, lastUsedAt: '2026-06-01T00:04:00.000Z' });
    // So does a key that does not exist.
    await recordKeyUse(deps, 999, new Date(Date.UTC(2026, 5, 1, 0, 9)));
    expect(await events.streamRevision(keyUsageStream(999))).toBe(-1);
  });

  it('appends after a use another instance recorded at the same moment', async () => {
    const { deps, events } = stack();
    const key = await issueKey(deps, admin, { name: 'ci', admin: true, grants: [] });
    await Promise.all([0, 1, 2].map((i) => recordKeyUse(deps, key.id, new Date(Date.UTC(2026, 5, 1, 1, i)))));
    expect((await events.readStream(keyUsageStream(key.id))).events).toHaveLength(3);
  });
});

/**
 * Key use is recorded beside the key's stream, never in it (issue 32, item 6): a key used
 * every minute for months must not make every command on it read months of events.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CommandDeps } from '../../app/deps.ts';
import { PublishGate } from '../../app/gate.ts';
import { issueKey, recordKeyUse, revokeKey } from '../../app/keys/keys.ts';
import { keyStream, keyUsageStream } from '../../domain/streams.ts';
import { openFolderBlobStore } from '../../host/blobs/folder.ts';
import { openSqliteEventStore } from '../../host/eventstore/sqlite.ts';
import { Projector } from '../../host/projector.ts';
import { openSqliteReadModel } from '../../host/readmodel/sqlite.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function stack() {
  const dir = mkdtempSync(join(tmpdir(), 'key-usage-'));
  dirs.push(dir);
  const events = openSqliteEventStore(join(dir, 'events.sqlite'));
  const readModel = openSqliteReadModel(join(dir, 'readmodel.sqlite'));
  const projector = new Projector(events, readModel, { holder: 'test' });
  // One catch-up at a time, as the service's single projector runs (two would race their checkpoints).
  let projecting: Promise<unknown> = Promise.resolve();
  const project = () => (projecting = projecting.then(() => projector.catchUp()));
  const deps: CommandDeps = {
    events,
    readModel,
    blobs: openFolderBlobStore(join(dir, 'blobs')),
    versioning: { enabled: false, keep: 0 },
    limits: { maxUploadBytes: 1, maxExtractBytes: 1, maxExtractEntries: 1 },
    tmpDir: dir,
    gate: new PublishGate(),
    now: () => new Date('2026-06-01T00:00:00.000Z'),
    waitForProjection: async (stream, revision) => {
      await project();
      await projector.waitFor(stream, revision, 1_000);
    },
  };
  return { deps, events, readModel };
}

describe('recording key use', () => {
  it("appends each use to the key's usage stream; the key's own stream keeps its two events", async () => {
    const { deps, events, readModel } = stack();
    const { key } = await issueKey(deps, { kind: 'user', name: 'admin' }, { name: 'ci', admin: true, grants: [] });
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
    const { key } = await issueKey(deps, { kind: 'user', name: 'admin' }, { name: 'ci', admin: true, grants: [] });
    await Promise.all([0, 1, 2].map((i) => recordKeyUse(deps, key.id, new Date(Date.UTC(2026, 5, 1, 1, i)))));
    expect((await events.readStream(keyUsageStream(key.id))).events).toHaveLength(3);
  });
});

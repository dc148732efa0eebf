/**
 * A connection's use is recorded beside its stream, never in it, as a key's is: a busy
 * connection's uses must not contend with the token endpoint's writes to `connection-<id>`
 * (an expected-revision race there would retry a refresh), nor make commands on it read
 * months of uses.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { grantConnection } from '../../app/connections/grant-connection.ts';
import { recordConnectionUse } from '../../app/connections/record-connection-use.ts';
import { registerOAuthClient } from '../../app/connections/register-client.ts';
import { revokeConnection } from '../../app/connections/revoke-connection.ts';
import { redeemCode, refreshTokens } from '../../app/connections/token-requests.ts';
import { systemIdentity } from '../../domain/auth.ts';
import { newConnectionId, newCredential, s256 } from '../../domain/connection/credentials.ts';
import { connectionStream, connectionUsageStream } from '../../domain/streams.ts';
import { admin, openApp, type AppHarness } from '../support/app.ts';

const opened: AppHarness[] = [];
afterEach(async () => {
  for (const app of opened.splice(0)) await app.close();
});

const USAGE = systemIdentity('connection-usage');
const ENDPOINT = systemIdentity('oauth-token');
const REDIRECT = 'http://127.0.0.1:9/cb';
const TTL = { accessMs: 3_600_000, refreshMs: 30 * 86_400_000 };
const verifier = 'v'.repeat(50);
const minute = (m: number) => new Date(Date.UTC(2026, 5, 1, 0, m));

async function connected() {
  const app = openApp();
  opened.push(app);
  await registerOAuthClient(app.deps, systemIdentity('oauth-registration'), { clientId: 'c1', name: 'Agent', redirectUris: [REDIRECT] });
  const id = newConnectionId();
  const code = newCredential('code', id);
  const grants = [{ kind: 'group' as const, target: 'mcp', permissions: ['publish' as const] }];
  await grantConnection(app.deps, admin, { id, clientId: 'c1', clientName: 'Agent', grants, resource: 'http://localhost/mcp', code, challenge: s256(verifier), redirectUri: REDIRECT });
  const redeemed = await redeemCode(app.deps, ENDPOINT, { code, verifier, clientId: 'c1', redirectUri: REDIRECT, ttl: TTL });
  if (!redeemed.ok) throw new Error(redeemed.refusal.description);
  return { app, id, tokens: redeemed.tokens };
}

describe('recording connection use', () => {
  it("appends each use to the connection's usage stream; the connection's own stream holds only its token events", async () => {
    const { app, id } = await connected();
    const own = async () => (await app.events.readStream(connectionStream(id))).events.map((e) => e.type);
    const before = await own();
    for (let m = 0; m < 5; m++) await recordConnectionUse(app.deps, USAGE, { id, at: minute(m) });
    expect(await own()).toEqual(before);
    expect(before).not.toContain('ConnectionUsed');
    const uses = (await app.events.readStream(connectionUsageStream(id))).events;
    expect(uses.map((e) => [e.type, e.data])).toEqual([0, 1, 2, 3, 4].map((m) => ['ConnectionUsed', { id, at: minute(m).toISOString() }]));
    expect(uses[0]!.meta.actor).toEqual({ kind: 'system', name: 'connection-usage' });
    expect((await app.readModel.getConnection(id))?.lastUsedAt).toBe('2026-06-01T00:04:00.000Z');

    await revokeConnection(app.deps, admin, { id });
    // A revoked connection records no use (a request raced the revoke), nor does an unknown one.
    await recordConnectionUse(app.deps, USAGE, { id, at: minute(9) });
    expect(await app.events.streamRevision(connectionUsageStream(id))).toBe(4);
    expect(await app.readModel.getConnection(id)).toMatchObject({ revoked: true, lastUsedAt: '2026-06-01T00:04:00.000Z' });
    await recordConnectionUse(app.deps, USAGE, { id: 'nope', at: minute(9) });
    expect(await app.events.streamRevision(connectionUsageStream('nope'))).toBe(-1);
  });

  it('uses recorded while the client refreshes its tokens never move the revision the refresh expects', async () => {
    const { app, id, tokens } = await connected();
    const revision = await app.events.streamRevision(connectionStream(id));
    await Promise.all([0, 1, 2].map((m) => recordConnectionUse(app.deps, USAGE, { id, at: minute(m) })));
    expect(await app.events.streamRevision(connectionStream(id))).toBe(revision);
    const refreshed = await refreshTokens(app.deps, ENDPOINT, { refreshToken: tokens.refreshToken, clientId: 'c1', ttl: TTL });
    expect(refreshed.ok).toBe(true);
    expect((await app.events.readStream(connectionUsageStream(id))).events).toHaveLength(3);
  });
});

/**
 * app/connections/ in this process: the OAuth client registration, the consent, the token
 * endpoint's redemption and rotation (a replay revokes), access-token authentication, the
 * admins' list and revoke, and the expiry of unused registrations.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { authenticateConnection } from '../../app/connections/authenticate-connection.ts';
import { grantConnection } from '../../app/connections/grant-connection.ts';
import { openConsent } from '../../app/connections/open-consent.ts';
import { connectionsOverview, listConnections } from '../../app/connections/list-connections.ts';
import { findOAuthClient, registerOAuthClient } from '../../app/connections/register-client.ts';
import { revokeConnection } from '../../app/connections/revoke-connection.ts';
import { redeemCode, refreshTokens } from '../../app/connections/token-requests.ts';
import { expireUnusedClients } from '../../app/jobs/expire-unused-clients.ts';
import { forwardAuthIdentity, systemIdentity } from '../../domain/auth.ts';
import { newConnectionId, newCredential, s256 } from '../../domain/connection/credentials.ts';
import { ForbiddenError, NotFoundError } from '../../domain/errors.ts';
import { admin, keyHolder, openApp, viewer, type AppHarness } from '../support/app.ts';

const opened: AppHarness[] = [];
afterEach(async () => {
  for (const app of opened.splice(0)) await app.close();
});
const RESOURCE = 'http://localhost/mcp';
const REDIRECT = 'http://127.0.0.1:9/cb';
const TTL = { accessMs: 3_600_000, refreshMs: 30 * 86_400_000 };
const endpoint = systemIdentity('oauth-token');
const verifier = 'v'.repeat(50);

async function consented(app: AppHarness, approver = admin) {
  if (!(await findOAuthClient(app.deps, { clientId: 'c1' }))) {
    await registerOAuthClient(app.deps, systemIdentity('oauth-registration'), { clientId: 'c1', name: 'Agent', redirectUris: [REDIRECT] });
  }
  const id = newConnectionId();
  const code = newCredential('code', id);
  const grants = [{ kind: 'group' as const, target: 'mcp', permissions: ['publish' as const] }];
  await grantConnection(app.deps, approver, { id, clientId: 'c1', clientName: 'Agent', grants, resource: RESOURCE, code, challenge: s256(verifier), redirectUri: REDIRECT });
  return { id, code };
}

describe('connections', () => {
  it('consent → code → tokens → an identity with exactly the granted grants; the code works once', async () => {
    const app = openApp();
    opened.push(app);
    const { id, code } = await consented(app);
    const redeemed = await redeemCode(app.deps, endpoint, { code, verifier, clientId: 'c1', redirectUri: REDIRECT, ttl: TTL });
    if (!redeemed.ok) throw new Error(redeemed.refusal.description);
    const who = await authenticateConnection(app.deps, { token: redeemed.tokens.accessToken, resource: RESOURCE });
    expect(who).toMatchObject({ ok: true, identity: { via: 'connection', principal: { kind: 'grants', grants: [{ target: 'mcp' }] }, actor: { kind: 'connection', id, user: 'admin' } } });
    // A second redemption is a replay: refused, and the connection is revoked with it.
    const again = await redeemCode(app.deps, endpoint, { code, verifier, clientId: 'c1', redirectUri: REDIRECT, ttl: TTL });
    expect(again).toMatchObject({ ok: false, refusal: { error: 'invalid_grant', revoke: 'authorization code reused' } });
    expect(await authenticateConnection(app.deps, { token: redeemed.tokens.accessToken, resource: RESOURCE })).toMatchObject({ ok: false, reason: 'the connection was revoked' });
  });

  it('refresh rotates the pair; the old refresh token replayed revokes the connection', async () => {
    const app = openApp();
    opened.push(app);
    const { code } = await consented(app);
    const first = await redeemCode(app.deps, endpoint, { code, verifier, clientId: 'c1', redirectUri: REDIRECT, ttl: TTL });
    if (!first.ok) throw new Error('not redeemed');
    const rotated = await refreshTokens(app.deps, endpoint, { refreshToken: first.tokens.refreshToken, clientId: 'c1', ttl: TTL });
    expect(rotated.ok).toBe(true);
    const replay = await refreshTokens(app.deps, endpoint, { refreshToken: first.tokens.refreshToken, clientId: 'c1', ttl: TTL });
    expect(replay).toMatchObject({ ok: false, refusal: { revoke: 'refresh token reused' } });
    expect((await listConnections(app.deps, admin, { revoked: true })).connections).toMatchObject([{ revoked_reason: 'refresh token reused' }]);
  });

  it('the consent page opens only for a signed-in person in SITES_MCP_ALLOWED_USERS: not for an admin who is not, a key or a job', async () => {
    const app = openApp({ mcpApprovers: ['carol'] });
    opened.push(app);
    const { deps } = app;
    expect(() => openConsent(deps, forwardAuthIdentity('carol', new Set()))).not.toThrow();
    for (const who of [admin, viewer, forwardAuthIdentity('dave', new Set(['dave'])), keyHolder('admin', 'carol'), systemIdentity('carol')]) {
      expect(() => openConsent(deps, who), who.name).toThrow(ForbiddenError);
    }
    expect(() => openConsent(deps, admin)).toThrow('admin may not approve MCP connections on this server. Ask an administrator (SITES_MCP_ALLOWED_USERS).');
  });

  it('only an allowed approver consents; only admins list and revoke', async () => {
    const app = openApp({ mcpApprovers: ['admin'] });
    opened.push(app);
    await expect(consented(app, forwardAuthIdentity('mallory', new Set(['mallory'])))).rejects.toBeInstanceOf(ForbiddenError);
    const { id, code } = await consented(app);
    await redeemCode(app.deps, endpoint, { code, verifier, clientId: 'c1', redirectUri: REDIRECT, ttl: TTL });
    await expect(listConnections(app.deps, viewer)).rejects.toBeInstanceOf(ForbiddenError);
    await expect(revokeConnection(app.deps, viewer, { id })).rejects.toBeInstanceOf(ForbiddenError);
    expect((await listConnections(app.deps, admin)).connections.map((c) => c.id)).toEqual([id]);
    await revokeConnection(app.deps, admin, { id });
    await expect(revokeConnection(app.deps, admin, { id })).rejects.toBeInstanceOf(NotFoundError);
    expect(await connectionsOverview(app.deps, admin, { all: true })).toMatchObject([{ status: 'revoked', connection: { revoked_reason: 'revoked by admin' } }]);
  });

  it('an unused registration expires after a day; a used one never does', async () => {
    const app = openApp();
    opened.push(app);
    await consented(app);
    await registerOAuthClient(app.deps, systemIdentity('oauth-registration'), { clientId: 'c2', name: 'Unused', redirectUris: [REDIRECT] });
    const later = new Date(app.now.getTime() + 25 * 3_600_000);
    expect(await expireUnusedClients(app.deps, systemIdentity('oauth-client-expiry'), { now: later })).toEqual(['c2']);
    expect(await findOAuthClient(app.deps, { clientId: 'c2' })).toBeUndefined();
    expect(await findOAuthClient(app.deps, { clientId: 'c1' })).toMatchObject({ usedAt: expect.any(String) });
  });
});

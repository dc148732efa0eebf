/**
 * `GET /api/mcp/connections` as spec §13 gives it: active connections only by default,
 * `?revoked=true` adds the revoked ones with `revoked_at`; `last_used_at` is when the access
 * token last authorized a request; `expires_at` is when the refresh token lapses and moves
 * forward with each refresh.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../support/service.ts';
import { connectClient, rawMcp, tokenRequest } from './oauth-helpers.ts';

let svc: RunningService;
beforeAll(async () => {
  svc = await startService();
});
afterAll(() => svc?.stop());

type Listed = { id: string; client_name: string; last_used_at?: string; expires_at: string; revoked_at?: string };
const list = async (query = ''): Promise<Listed[]> =>
  ((await (await fetch(`${svc.url}/api/mcp/connections${query}`, { headers: { 'Remote-User': 'admin' } })).json()) as { connections: Listed[] }).connections;

describe('MCP connections over the API', () => {
  it('lists active connections with last use and expiry; revoked ones only on request', async () => {
    const used = (await connectClient(svc.url, 'Used', { kind: 'group', group: 'mcp', caps: ['publish'] }))!;
    await connectClient(svc.url, 'Idle', { kind: 'group', group: 'mcp', caps: ['publish'] });
    await connectClient(svc.url, 'Never exchanged', { kind: 'group', group: 'mcp', caps: ['publish'] }, false);
    const gone = (await connectClient(svc.url, 'Gone', { kind: 'group', group: 'mcp', caps: ['publish'] }))!;

    const before = Date.now();
    expect((await rawMcp(svc.url, used.access)).status).toBe(200);
    const goneId = (await list()).find((c) => c.client_name === 'Gone')!.id;
    expect((await fetch(`${svc.url}/api/mcp/connections/${goneId}`, { method: 'DELETE', headers: { 'Remote-User': 'admin', Origin: svc.url } })).status).toBe(204);
    expect((await rawMcp(svc.url, gone.access)).status).toBe(401);

    await expect.poll(async () => (await list()).find((c) => c.client_name === 'Used')?.last_used_at).toBeTruthy();
    const active = await list();
    expect(active.map((c) => c.client_name).sort()).toEqual(['Idle', 'Used']);
    const usedRow = active.find((c) => c.client_name === 'Used')!;
    expect(Date.parse(usedRow.last_used_at!)).toBeGreaterThanOrEqual(before - 1000);
    expect(active.find((c) => c.client_name === 'Idle')!.last_used_at).toBeUndefined();
    for (const c of active) expect(c.revoked_at).toBeUndefined();

    const withRevoked = await list('?revoked=true');
    expect(withRevoked.map((c) => c.client_name).sort()).toEqual(['Gone', 'Idle', 'Used']);
    expect(withRevoked.find((c) => c.client_name === 'Gone')!.revoked_at).toMatch(/^\d{4}-/);
    expect((await fetch(`${svc.url}/api/mcp/connections?revoked=maybe`, { headers: { 'Remote-User': 'admin' } })).status).toBe(400);
  });

  it('moves expires_at forward with each refresh', async () => {
    const c = (await connectClient(svc.url, 'Refresher', { kind: 'group', group: 'mcp', caps: ['publish'] }))!;
    const first = (await list()).find((x) => x.client_name === 'Refresher')!.expires_at;
    await new Promise((r) => setTimeout(r, 20));
    const refreshed = await tokenRequest(svc.url, { grant_type: 'refresh_token', refresh_token: c.refresh, client_id: c.clientId });
    expect(refreshed.status).toBe(200);
    const second = (await list()).find((x) => x.client_name === 'Refresher')!.expires_at;
    expect(Date.parse(second)).toBeGreaterThan(Date.parse(first));
  });
});

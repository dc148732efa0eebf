/**
 * 2025-era sessions over real HTTP with SDK clients that, like SDK v1 clients,
 * never send DELETE: the number of sessions stays bounded, the least recently
 * used idle one is evicted, an idle one expires, an active one survives, and a
 * gone session's id answers 404 (the Streamable HTTP answer for an unknown session).
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { HttpEndpoint } from '../../mcp/diary/http.ts';
import { startSimulator, type DiarySim } from '../support/diary-sim/server.ts';
import { call, httpServer } from './helpers.ts';

let sim: DiarySim;
beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(() => sim.close());

type Open = { client: Client; id: string };
let opened: Open[] = [];
afterEach(async () => {
  await Promise.all(opened.map((o) => o.client.close()));
  opened = [];
});

/** A 2025-era SDK client that will never DELETE its session. */
async function connect(url: string): Promise<Open> {
  const client = new Client({ name: 'v1-like', version: '1' }, { capabilities: {}, versionNegotiation: { mode: 'legacy' } });
  client.onerror = () => undefined; // an evicted session's standing stream ends; that is expected here
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  const o = { client, id: transport.sessionId! };
  expect(o.id).toMatch(/^[0-9a-f-]{36}$/);
  opened.push(o);
  return o;
}

/** Status of a ping sent on a session id directly (the client would try to recover on its own). */
async function ping(url: string, id: string): Promise<number> {
  const r = await fetch(url, {
    method: 'POST',
    headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 'p', method: 'ping' }),
  });
  await r.text();
  return r.status;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const USER = '/api/account/users/current/user';

describe('session cap', { timeout: 5000 }, () => {
  let ep: HttpEndpoint;
  beforeAll(async () => {
    ep = await httpServer(sim, 2000, { maxSessions: 3, idleMs: 60_000 });
  });
  afterAll(() => ep.close());

  it('stays bounded and evicts the least recently used idle session, whose id then answers 404', async () => {
    const [a, b, c] = [await connect(ep.url), await connect(ep.url), await connect(ep.url)];
    expect(ep.sessionCount()).toBe(3);
    expect(await ping(ep.url, a.id)).toBe(200); // a used last: b is now the oldest idle one
    const d = await connect(ep.url);
    expect(ep.sessionCount()).toBe(3);
    expect(await ping(ep.url, b.id)).toBe(404);
    const e = await connect(ep.url);
    expect(ep.sessionCount()).toBe(3);
    expect(await ping(ep.url, c.id)).toBe(404);
    for (const s of [a, d, e]) expect(await ping(ep.url, s.id)).toBe(200);
    for (let i = 0; i < 4; i++) await connect(ep.url);
    expect(ep.sessionCount()).toBe(3);
  });

  it('a session in the middle of a tool call is not evicted; a newcomer gets 503 until it ends', async () => {
    const one = await httpServer(sim, 2000, { maxSessions: 1, idleMs: 60_000 });
    try {
      sim.reset();
      const busy = await connect(one.url);
      sim.delay({ path: USER }, 400);
      const inFlight = call(busy.client, 'get_user_info');
      await vi.waitFor(() => expect(sim.log.some((l) => l.path === USER)).toBe(true)); // the call is under way
      const init = await fetch(one.url, {
        method: 'POST',
        headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }),
      });
      expect(init.status).toBe(503);
      expect(init.headers.get('mcp-session-id')).toBeNull();
      expect((await inFlight).isError).toBe(false);
      const next = await connect(one.url); // idle now: it makes room
      expect(one.sessionCount()).toBe(1);
      expect(await ping(one.url, busy.id)).toBe(404);
      expect(await ping(one.url, next.id)).toBe(200);
    } finally {
      sim.clearFaults();
      await Promise.all(opened.splice(0).map((o) => o.client.close()));
      await one.close();
    }
  });

  it('DELETE still ends a session at once and frees its place', async () => {
    const s = await connect(ep.url);
    const open = ep.sessionCount();
    const r = await fetch(ep.url, { method: 'DELETE', headers: { 'mcp-session-id': s.id, 'mcp-protocol-version': '2025-11-25' } });
    expect(r.status).toBe(200);
    expect(ep.sessionCount()).toBe(open - 1);
    expect(await ping(ep.url, s.id)).toBe(404);
  });
});

describe('idle timeout', { timeout: 5000 }, () => {
  const IDLE = 300;
  let ep: HttpEndpoint;
  beforeAll(async () => {
    ep = await httpServer(sim, 2000, { maxSessions: 100, idleMs: IDLE });
  });
  afterAll(() => ep.close());

  it('an idle session expires (404) while an active one survives', async () => {
    const idle = await connect(ep.url);
    const active = await connect(ep.url);
    expect(ep.sessionCount()).toBe(2);
    for (let t = 0; t < 2.5 * IDLE; t += 50) {
      await sleep(50);
      await active.client.ping();
    }
    expect(ep.sessionCount()).toBe(1);
    expect(await ping(ep.url, idle.id)).toBe(404);
    expect(await ping(ep.url, active.id)).toBe(200);
    expect((await call(active.client, 'list_sports')).isError).toBe(false);
    await sleep(IDLE + 150);
    expect(ep.sessionCount()).toBe(0);
    expect(await ping(ep.url, active.id)).toBe(404);
  });

  it('a tool call longer than the idle timeout completes and keeps its session', async () => {
    const s = await connect(ep.url);
    sim.delay({ path: USER }, 2 * IDLE);
    try {
      const r = await call(s.client, 'get_user_info');
      expect(r.isError, r.text).toBe(false);
      expect(await ping(ep.url, s.id)).toBe(200);
    } finally {
      sim.clearFaults();
    }
  });
});

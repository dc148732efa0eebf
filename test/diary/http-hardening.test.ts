/**
 * DNS rebinding, written as the attack: a page on a foreign name that resolves to
 * this server (or a page elsewhere, by its Origin) calls delete_training_target.
 * Each refusal sits next to the same request on the legitimate path, which does
 * delete, so a refusal can only come from the Host/Origin check.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Agent, request } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readConfig } from '../../mcp/diary/config.ts';
import type { HttpEndpoint } from '../../mcp/diary/http.ts';
import { startSimulator, type DiarySim } from '../support/diary-sim/server.ts';
import { call, dataCalls, day, fetchWithHost, httpClient, httpServer, MODERN, parsed, type Era, type TestClient } from './helpers.ts';

let sim: DiarySim;
let endpoint: HttpEndpoint;
let port: string;
let seeder: TestClient;
beforeAll(async () => {
  sim = await startSimulator();
  endpoint = await httpServer(sim);
  port = new URL(endpoint.url).port;
  seeder = await httpClient(endpoint.url, 'modern', 'none');
});
afterAll(async () => {
  await seeder.close();
  await endpoint.close();
  await sim.close();
});
beforeEach(() => sim.reset());

/** A real target in the simulator, created on the legitimate path. */
async function target(): Promise<number> {
  const r = await call(seeder, 'create_training_target', { name: 'Long run', date: day(4), duration_s: 5400 });
  const id = Number(/target (\d+)/.exec(r.text)?.[1]);
  expect(sim.state.targets.has(id), r.text).toBe(true);
  return id;
}

type Sent = { status: number; text: string; sessionId: string | null };

/** One POST to /mcp as the attacker's page would send it (no elicitation capability: nothing asks the user). */
async function post(host: string, body: unknown, headers: Record<string, string> = {}): Promise<Sent> {
  const r = await fetchWithHost(host)(endpoint.url, {
    method: 'POST',
    headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(3000),
  });
  return { status: r.status, text: await r.text(), sessionId: r.headers.get('mcp-session-id') };
}

const meta = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientInfo': { name: 'page', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} };

/** The delete as a stateless 2026-07-28 request. */
const modernDelete = (host: string, id: number, extra: Record<string, string> = {}): Promise<Sent> =>
  post(
    host,
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'delete_training_target', arguments: { target_id: id }, _meta: meta } },
    { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'delete_training_target', ...extra },
  );

/** A 2025-era session opened from loopback (the attacker may have learnt or guessed its id). */
async function legacySession(): Promise<string> {
  const init = await post(`127.0.0.1:${port}`, {
    jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'page', version: '1' } },
  });
  expect(init.status, init.text).toBe(200);
  const sid = init.sessionId!;
  const note = await post(`127.0.0.1:${port}`, { jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-session-id': sid });
  expect(note.status).toBe(202);
  return sid;
}

/** The delete inside a 2025-era session. */
const legacyDelete = (host: string, sid: string, id: number, extra: Record<string, string> = {}): Promise<Sent> =>
  post(host, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'delete_training_target', arguments: { target_id: id } } }, { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25', ...extra });

/** The delete in either era. */
async function deleter(era: Era): Promise<(host: string, id: number, extra?: Record<string, string>) => Promise<Sent>> {
  if (era === 'modern') return modernDelete;
  const sid = await legacySession();
  return (host, id, extra) => legacyDelete(host, sid, id, extra);
}

function refused(r: Sent, what: RegExp): void {
  expect(r.status, r.text).toBe(403);
  const body = JSON.parse(r.text) as { jsonrpc: string; error: { message: string } };
  expect(body.jsonrpc).toBe('2.0');
  expect(body.error.message).toMatch(what);
}

const deletes = (): string[] => dataCalls(sim).filter((c) => c.startsWith('DELETE'));

for (const era of ['modern', 'legacy'] as Era[]) {
  describe(`DNS rebinding, ${era} era`, { timeout: 5000 }, () => {
    it('a foreign Host calling delete_training_target is refused 403 and the target survives', async () => {
      const id = await target();
      const del = await deleter(era);
      const before = sim.log.length;
      for (const host of ['evil.example', `attacker.test:${port}`, `evil.example:${port}`]) refused(await del(host, id), /Invalid Host/);
      expect(sim.state.targets.has(id)).toBe(true);
      expect(sim.log.length).toBe(before); // nothing ran: not even the read before the delete
    });

    it('the same request with a loopback Host deletes the target', async () => {
      const del = await deleter(era);
      for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, 'localhost']) {
        const id = await target();
        const r = await del(host, id);
        expect(r.status, r.text).toBe(200);
        expect(r.text).toContain(`Deleted target ${id}.`);
        expect(sim.state.targets.has(id)).toBe(false);
      }
    });

    it('a foreign Origin is refused 403 even with a loopback Host; a loopback Origin works', async () => {
      const id = await target();
      const del = await deleter(era);
      for (const origin of ['http://evil.example', `http://attacker.test:${port}`, 'https://localhost.evil.example', 'null']) {
        refused(await del(`127.0.0.1:${port}`, id, { origin }), /Invalid Origin/);
      }
      expect(sim.state.targets.has(id)).toBe(true);
      expect(deletes()).toEqual([]);
      const ok = await del(`127.0.0.1:${port}`, id, { origin: 'http://localhost:5173' });
      expect(ok.text).toContain(`Deleted target ${id}.`);
      expect(sim.state.targets.has(id)).toBe(false);
    });
  });
}

describe('DNS rebinding, before anything runs', { timeout: 5000 }, () => {
  it('a foreign Host cannot open a 2025-era session', async () => {
    const open = endpoint.sessionCount();
    const r = await post('evil.example', { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'page', version: '1' } } });
    refused(r, /Invalid Host/);
    expect(r.sessionId).toBeNull();
    expect(endpoint.sessionCount()).toBe(open);
  });

  it('a foreign Host is refused before the body is parsed, and on every path', async () => {
    const garbage = await fetchWithHost('evil.example')(endpoint.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{not json' });
    expect(garbage.status).toBe(403);
    for (const path of ['/healthz', '/mcp', '/elsewhere']) {
      const r = await fetchWithHost('evil.example')(new URL(path, endpoint.url), { method: 'GET' });
      expect(r.status, path).toBe(403);
    }
    expect((await fetchWithHost(`localhost:${port}`)(new URL('/healthz', endpoint.url))).status).toBe(200);
  });

  it('a refused request is answered without reading its body, and its connection stays usable', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const send = (host: string, body: Buffer) =>
      new Promise<number>((resolve, reject) => {
        const r = request(endpoint.url, { method: 'POST', agent, headers: { host, 'content-type': 'application/json', accept: 'application/json, text/event-stream' } }, (res) => {
          res.resume().on('end', () => resolve(res.statusCode!));
        });
        r.on('error', reject).end(body);
      });
    try {
      const started = Date.now();
      expect(await send('evil.example', Buffer.alloc(4_000_000, 'x'))).toBe(403);
      expect(await send(`127.0.0.1:${port}`, Buffer.from('{}'))).toBe(400);
      expect(Date.now() - started).toBeLessThan(1500); // a half-read body left in the socket stalls this for seconds
    } finally {
      agent.destroy();
    }
  });
});

describe('DIARY_ALLOWED_HOSTS', { timeout: 5000 }, () => {
  let named: HttpEndpoint;
  beforeAll(async () => {
    const config = readConfig(['--http', '127.0.0.1:0'], { ...sim.env(), DIARY_ALLOWED_HOSTS: 'Diary.LAN:8090, 10.0.0.7' });
    if (typeof config === 'string') throw new Error(config);
    expect(config.http.allowedHosts).toEqual(['diary.lan', '10.0.0.7']);
    named = await httpServer(sim, 2000, config.http);
  });
  afterAll(() => named.close());

  for (const era of ['modern', 'legacy'] as Era[]) {
    it(`an SDK client (${era}) reaching the server as diary.lan works; evil.example still does not`, async () => {
      const id = await target();
      const client = new Client({ name: 'lan', version: '1' }, { capabilities: {}, versionNegotiation: era === 'modern' ? { mode: { pin: MODERN } } : { mode: 'legacy' } });
      await client.connect(new StreamableHTTPClientTransport(new URL(named.url), { fetch: fetchWithHost('diary.lan:8090'), requestInit: { headers: { origin: 'https://diary.lan' } } }));
      expect(parsed(await call(client, 'get_user_info'))).toMatchObject({ email: 'rider@example.org' });
      expect(await call(client, 'delete_training_target', { target_id: id })).toEqual({ isError: false, text: `Deleted target ${id}.` });
      await client.close();

      const kept = await target();
      const attacker = new Client({ name: 'page', version: '1' }, { capabilities: {}, versionNegotiation: era === 'modern' ? { mode: { pin: MODERN } } : { mode: 'legacy' } });
      await expect(attacker.connect(new StreamableHTTPClientTransport(new URL(named.url), { fetch: fetchWithHost('evil.example') }))).rejects.toThrow(/403|Invalid Host/);
      expect(sim.state.targets.has(kept)).toBe(true);
    });
  }

  it('loopback names stay allowed, and the listed names are no wildcard', async () => {
    const r = await fetchWithHost(`127.0.0.1:${new URL(named.url).port}`)(new URL('/healthz', named.url));
    expect(r.status).toBe(200);
    for (const host of ['sub.diary.lan', 'diary.lan.evil.example', '10.0.0.77']) {
      expect((await fetchWithHost(host)(new URL('/healthz', named.url))).status, host).toBe(403);
    }
  });
});

describe('request bodies are bounded', { timeout: 10_000 }, () => {
  const host = () => `127.0.0.1:${port}`;
  const listTools = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta } };
  const headers = { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' };

  it('a body declared over 1 MiB is refused with 413 before it is read', async () => {
    const padded = JSON.stringify({ ...listTools, params: { ...listTools.params, pad: 'x'.repeat(2 * 1024 * 1024) } });
    const r = await fetchWithHost(host())(endpoint.url, {
      method: 'POST',
      headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', ...headers },
      body: padded,
    });
    expect(r.status).toBe(413);
    expect(await r.text()).toContain('larger than 1048576 bytes');
  });

  it('a chunked body past 1 MiB is cut off, and the server keeps answering', async () => {
    const sent = await new Promise<number | 'reset'>((resolve) => {
      const req = request(endpoint.url, {
        method: 'POST',
        headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', host: host(), ...headers },
      });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', () => resolve('reset'));
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      let written = 0;
      const pump = (): void => {
        while (written < 8 * 1024 * 1024) {
          written += chunk.length;
          if (!req.write(chunk)) return void req.once('drain', pump);
        }
        req.end();
      };
      req.on('socket', pump);
    });
    expect(sent === 'reset' || sent >= 400).toBe(true);
    expect((await post(host(), listTools, headers)).status).toBe(200);
  });
});

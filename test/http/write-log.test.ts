/**
 * The operator's log (issue 24 item 12; docs/reference/logs.md): with SITES_LOG_FORMAT=json
 * every line the service writes is JSON; every write names actor, action, site, revision and
 * outcome, refused ones included; every 401/403 names status, route and client; no token
 * ever appears, wherever a client put it.
 */
import '../support/localhost-dns.ts';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient } from '../mcp/oauth-helpers.ts';
import { publish } from '../support/publish.ts';
import { startService, type RunningService } from '../support/service.ts';

type Line = Record<string, unknown>;

const ROOT = resolve(import.meta.dirname, '..', '..');

let svc: RunningService;
let admin: string;
let ci: string;
let adminId: number;
let ciId: number;
/** Every credential a client sent or received during the run: none may appear in the log. */
const tokens: string[] = [];

beforeAll(async () => {
  svc = await startService({ env: { SITES_LOG_FORMAT: 'json', SITES_LOG_LEVEL: 'info' } });
  admin = await svc.createKey(['--name', 'admin', '--admin']);
  ci = await svc.createKey(['--name', 'ci', '--grant', 'docs:publish']);
  tokens.push(admin, ci);
  const keys = JSON.parse((await svc.cli(['keys', 'list', '--json'])).stdout) as { id: number; name: string }[];
  adminId = keys.find((k) => k.name === 'admin')!.id;
  ciId = keys.find((k) => k.name === 'ci')!.id;
});
afterAll(() => svc?.stop());

/** Every line written so far; each must be a JSON object. */
function lines(): Line[] {
  return svc
    .output()
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => {
      try {
        return JSON.parse(l) as Line;
      } catch {
        throw new Error(`not a JSON line: ${l}`);
      }
    });
}

/** The one line matching `fields` (waits for it: the log reaches the test through a pipe). */
async function lineWith(fields: Line): Promise<Line> {
  const matches = () => lines().filter((l) => Object.entries(fields).every(([k, v]) => l[k] === v));
  for (let i = 0; i < 100 && matches().length === 0; i++) await new Promise((r) => setTimeout(r, 20));
  const found = matches();
  expect(found, `one line with ${JSON.stringify(fields)}`).toHaveLength(1);
  return found[0]!;
}

const api = async (method: string, path: string, init: { key?: string; user?: string; body?: unknown } = {}) => {
  const res = await fetch(new URL(path, svc.url), {
    method,
    headers: {
      ...(init.key ? { Authorization: `Bearer ${init.key}` } : {}),
      ...(init.user ? { 'Remote-User': init.user } : {}),
      ...(init.body !== undefined ? { 'Content-Type': 'application/json' } : {}),
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
};

describe('the write log', () => {
  it('starts with JSON lines, the start-up line included', async () => {
    await lineWith({ level: 'info', msg: lines().find((l) => String(l.msg).startsWith('serving '))?.msg as string });
  });

  it('logs publishes (refused ones with the site they tried), a rollback and the whole lifecycle with actor, site and revision', async () => {
    const v1 = await publish(svc.url, ci, { group: 'docs', slug: 'app', title: 'App' }, { index: '<p>1</p>' });
    const v2 = await publish(svc.url, ci, { group: 'docs', slug: 'app', title: 'App' }, { index: '<p>2</p>' });
    expect([v1.status, v2.status]).toEqual([200, 200]);
    const published = await lineWith({ msg: 'write', action: 'publish', revision: v2.body.revision, unchanged: undefined });
    expect(published).toMatchObject({ level: 'info', actor: `key:${ciId}`, actor_name: 'ci', site: 'docs/app', outcome: 'ok', status: 200, method: 'POST', route: '/ingest/sites', client: '127.0.0.1' });
    // A re-run that changes nothing (spec §4) is still a write line, marked unchanged.
    const again = await publish(svc.url, ci, { group: 'docs', slug: 'app', title: 'App' }, { index: '<p>2</p>' });
    expect(again.body).toMatchObject({ unchanged: true, revision: v2.body.revision });
    expect(await lineWith({ msg: 'write', action: 'publish', unchanged: true })).toMatchObject({ site: 'docs/app', revision: v2.body.revision, outcome: 'ok' });

    expect((await publish(svc.url, ci, { group: 'other', slug: 'x', title: 'X' }, { index: '<p>x</p>' })).status).toBe(403);
    expect(await lineWith({ msg: 'write', action: 'publish', site: 'other/x' })).toMatchObject({
      level: 'warn',
      actor: `key:${ciId}`,
      outcome: 'refused',
      status: 403,
      code: 'forbidden',
      route: '/ingest/sites',
      client: '127.0.0.1',
    });

    expect((await api('POST', '/ingest/sites/docs/app/rollback', { key: admin })).status).toBe(200);
    expect(await lineWith({ msg: 'write', action: 'rollback' })).toMatchObject({ actor: `key:${adminId}`, site: 'docs/app', revision: v1.body.revision, outcome: 'ok', status: 200 });

    // A signed-in person through the trusted proxy.
    expect((await api('PATCH', '/api/sites/docs/app', { user: 'admin', body: { title: 'Renamed' } })).status).toBe(200);
    expect(await lineWith({ msg: 'write', action: 'patch' })).toMatchObject({ actor: 'user:admin', site: 'docs/app', outcome: 'ok', status: 200, route: '/api/sites/docs/app' });
    expect((await api('PATCH', '/ingest/sites/docs/app', { key: ci, body: { title: 'No' } })).status).toBe(403);
    expect(await lineWith({ msg: 'write', action: 'patch', status: 403 })).toMatchObject({ actor: `key:${ciId}`, site: 'docs/app', outcome: 'refused', code: 'forbidden' });

    expect((await api('DELETE', '/ingest/sites/docs/app', { key: admin })).status).toBe(204);
    expect((await api('POST', '/ingest/sites/docs/app/restore', { key: admin })).status).toBe(200);
    expect((await api('DELETE', '/api/sites/docs/app', { key: admin })).status).toBe(204);
    expect((await api('DELETE', '/api/sites/deleted/docs/app', { key: admin })).status).toBe(204);
    expect((await api('POST', '/ingest/sites/docs/app/restore', { key: admin })).status).toBe(404);
    for (const [action, route] of [
      ['unpublish', '/ingest/sites/docs/app'],
      ['restore', '/ingest/sites/docs/app/restore'],
      ['unpublish', '/api/sites/docs/app'],
      ['purge', '/api/sites/deleted/docs/app'],
    ]) {
      expect(await lineWith({ msg: 'write', action, route, status: action === 'restore' ? 200 : 204 })).toMatchObject({ actor: `key:${adminId}`, site: 'docs/app', outcome: 'ok' });
    }
    expect(await lineWith({ msg: 'write', action: 'restore', status: 404 })).toMatchObject({ site: 'docs/app', outcome: 'refused', code: 'not_found' });
  });

  it('logs each step of an incremental deploy (sites publish)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'write-log-'));
    try {
      await writeFile(join(dir, 'index.html'), '<p>cli</p>');
      const r = await svc.cli(['publish', dir, '--site', 'docs/cli', '--title', 'CLI', '--key', ci, '--url', svc.url]);
      expect(r.code, r.stderr).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    const created = await lineWith({ msg: 'write', action: 'deploy.create' });
    expect(created).toMatchObject({ actor: `key:${ciId}`, site: 'docs/cli', outcome: 'ok', status: 201 });
    const upload = await lineWith({ msg: 'write', action: 'deploy.upload' });
    expect(upload).toMatchObject({ actor: `key:${ciId}`, outcome: 'ok', status: 204, target: expect.stringMatching(/^deploy:/) });
    const done = await lineWith({ msg: 'write', action: 'deploy.publish' });
    expect(done).toMatchObject({ actor: `key:${ciId}`, site: 'docs/cli', revision: expect.stringMatching(/^\d{8}T\d{6}\.\d{9}Z$/), outcome: 'ok', status: 200, target: upload.target });
  });

  it('logs attaching and detaching a custom domain with the site and the domain', async () => {
    expect((await publish(svc.url, admin, { group: 'docs', slug: 'dom', title: 'Dom' }, { index: '<p>d</p>' })).status).toBe(200);
    expect((await api('PUT', '/api/sites/docs/dom/domains/docs.acme.test', { key: admin })).status).toBe(200);
    expect((await api('PUT', '/api/sites/docs/dom/domains/docs.acme.test', { key: ci })).status).toBe(403);
    expect((await api('DELETE', '/api/sites/docs/dom/domains/docs.acme.test', { key: admin })).status).toBe(204);
    expect(await lineWith({ msg: 'write', action: 'domain.attach', status: 200 })).toMatchObject({ actor: `key:${adminId}`, site: 'docs/dom', target: 'domain:docs.acme.test', outcome: 'ok' });
    expect(await lineWith({ msg: 'write', action: 'domain.attach', status: 403 })).toMatchObject({ actor: `key:${ciId}`, site: 'docs/dom', outcome: 'refused', code: 'forbidden' });
    expect(await lineWith({ msg: 'write', action: 'domain.detach' })).toMatchObject({ site: 'docs/dom', target: 'domain:docs.acme.test', outcome: 'ok', status: 204 });
  });

  it('logs publishing and removing a preview with the site and preview:<name>; an unpublish through …/previews/<slug> as unpublish', async () => {
    expect((await publish(svc.url, admin, { group: 'docs', slug: 'pv', title: 'Pv' }, { index: '<p>p</p>' })).status).toBe(200);
    const form = new FormData();
    form.append('index', new Blob(['<p>pr</p>'], { type: 'text/html' }), 'index.html');
    const put = await fetch(new URL('/ingest/sites/docs/pv/previews/pr-5', svc.url), { method: 'PUT', headers: { Authorization: `Bearer ${ci}` }, body: form });
    expect(put.status).toBe(200);
    const revision = ((await put.json()) as { preview: { revision: string } }).preview.revision;
    expect((await api('DELETE', '/ingest/sites/docs/pv/previews/pr-5', { key: ci })).status).toBe(204);
    expect(await lineWith({ msg: 'write', action: 'preview.publish' })).toMatchObject({ actor: `key:${ciId}`, site: 'docs/pv', target: 'preview:pr-5', revision, outcome: 'ok', status: 200 });
    expect(await lineWith({ msg: 'write', action: 'preview.remove' })).toMatchObject({ site: 'docs/pv', target: 'preview:pr-5', outcome: 'ok', status: 204 });
    // A site in a group whose last label is previews: the same path is its unpublish.
    expect((await publish(svc.url, admin, { group: 'docs/previews', slug: 'pr-6', title: 'Old style' }, { index: '<p>o</p>' })).status).toBe(200);
    expect((await api('DELETE', '/ingest/sites/docs/previews/pr-6', { key: admin })).status).toBe(204);
    expect(await lineWith({ msg: 'write', action: 'unpublish', site: 'docs/previews/pr-6' })).toMatchObject({ outcome: 'ok', status: 204 });
  });

  it('logs key creation and revocation by key id, never the new token', async () => {
    const created = await api('POST', '/api/keys', { key: admin, body: { name: 'temp', grants: [{ kind: 'group', target: 'docs', permissions: ['publish'] }] } });
    expect(created.status).toBe(201);
    tokens.push(created.body.key);
    expect(await lineWith({ msg: 'write', action: 'key.create' })).toMatchObject({ actor: `key:${adminId}`, target: `key:${created.body.id}`, outcome: 'ok', status: 201 });
    expect((await api('DELETE', `/api/keys/${created.body.id}`, { key: admin })).status).toBe(204);
    expect(await lineWith({ msg: 'write', action: 'key.revoke' })).toMatchObject({ actor: `key:${adminId}`, target: `key:${created.body.id}`, outcome: 'ok', status: 204 });
  });

  it('logs every 401 and 403 with status, route and client address', async () => {
    const unknown = `key_${'A'.repeat(43)}`;
    tokens.push(unknown);
    expect((await api('GET', '/api/keys', { key: unknown })).status).toBe(401);
    expect(await lineWith({ msg: 'denied', route: '/api/keys', status: 401 })).toMatchObject({ level: 'warn', actor: 'anonymous', method: 'GET', client: '127.0.0.1', outcome: 'refused', code: 'unauthenticated' });
    expect((await api('GET', '/api/keys', { key: ci })).status).toBe(403);
    expect(await lineWith({ msg: 'denied', route: '/api/keys', status: 403 })).toMatchObject({ actor: `key:${ciId}`, client: '127.0.0.1', code: 'forbidden' });
    // A credential in the query string is not one (and is not logged either).
    expect((await api('GET', `/api/sites?access_token=${admin}&key=${admin}`)).status).toBe(401);
    expect(await lineWith({ msg: 'denied', route: '/api/sites', status: 401 })).toMatchObject({ client: '127.0.0.1' });
    // A write refused for its credential is one line: the write, with its 401 (its body is never read).
    expect((await publish(svc.url, unknown, { group: 'docs', slug: 'app', title: 'App' }, { index: '<p>x</p>' })).status).toBe(401);
    expect(await lineWith({ msg: 'write', action: 'publish', status: 401 })).toMatchObject({ level: 'warn', actor: 'anonymous', outcome: 'refused', client: '127.0.0.1' });
    // The MCP endpoint without a valid access token.
    const mcp = await fetch(`${svc.url}/mcp`, { method: 'POST', headers: { Authorization: `Bearer mcpa_${'0'.repeat(32)}.${'x'.repeat(43)}`, 'Content-Type': 'application/json' }, body: '{}' });
    expect(mcp.status).toBe(401);
    tokens.push(`mcpa_${'0'.repeat(32)}.${'x'.repeat(43)}`);
    expect(await lineWith({ msg: 'denied', route: '/mcp', status: 401 })).toMatchObject({ method: 'POST', client: '127.0.0.1' });
    // A token in a refused request's body.
    expect((await api('POST', '/api/keys', { key: ci, body: { name: admin, token: admin } })).status).toBe(403);
    expect(await lineWith({ msg: 'write', action: 'key.create', status: 403 })).toMatchObject({ actor: `key:${ciId}`, outcome: 'refused' });
  });

  it('logs MCP tool writes (not reads) with the connection as actor, the OAuth steps and the revoke', async () => {
    const connected = (await connectClient(svc.url, 'log-test', { kind: 'group', group: 'mcp', caps: ['publish', 'unpublish'] }))!;
    tokens.push(connected.access, connected.refresh);
    expect(await lineWith({ msg: 'write', action: 'oauth.register' })).toMatchObject({ actor: 'anonymous', outcome: 'ok', status: 201 });
    expect(await lineWith({ msg: 'write', action: 'oauth.consent' })).toMatchObject({ actor: 'user:admin', outcome: 'ok', status: 303 });
    expect(await lineWith({ msg: 'write', action: 'oauth.token' })).toMatchObject({ actor: 'anonymous', outcome: 'ok', status: 200 });

    const client = new Client({ name: 'log-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${connected.access}` } } }));
    try {
      const ok = (await client.callTool({ name: 'publish_site', arguments: { group: 'mcp', slug: 'demo', title: 'Demo', html: '<p>mcp</p>' } })) as { content: { text: string }[] };
      const revision = JSON.parse(ok.content[0]!.text).revision as string;
      const line = await lineWith({ msg: 'write', action: 'mcp.publish_site', outcome: 'ok' });
      expect(line).toMatchObject({ actor: expect.stringMatching(/^connection:[0-9a-f]{32}$/), actor_name: 'log-test (admin)', site: 'mcp/demo', revision, status: 200, method: 'MCP', client: '127.0.0.1' });
      const refused = (await client.callTool({ name: 'publish_site', arguments: { group: 'other', slug: 'x', title: 'X', html: '<p>x</p>' } })) as { isError?: boolean };
      expect(refused.isError).toBe(true);
      expect(await lineWith({ msg: 'write', action: 'mcp.publish_site', outcome: 'refused' })).toMatchObject({ actor: line.actor, site: 'other/x', status: 403, code: 'forbidden' });
      await client.callTool({ name: 'list_sites', arguments: {} });
      expect(lines().filter((l) => l.action === 'mcp.list_sites')).toEqual([]);
      const id = String(line.actor).slice('connection:'.length);
      expect((await api('DELETE', `/api/mcp/connections/${id}`, { key: admin })).status).toBe(204);
      expect(await lineWith({ msg: 'write', action: 'connection.revoke' })).toMatchObject({ actor: `key:${adminId}`, target: `connection:${id}`, outcome: 'ok' });
    } finally {
      await client.close().catch(() => undefined);
    }
  });

  it('writes a failure to start as a JSON line too', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'write-log-busy-'));
    try {
      // The running service holds the port.
      const r = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
        execFile(process.execPath, [join(ROOT, 'bin', 'sites.mjs'), 'serve'], { env: { ...process.env, ...svc.env, SITES_DATA_DIR: dataDir } }, (err, _stdout, stderr) =>
          resolve({ code: (err as { code?: number } | null)?.code ?? 0, stderr }),
        );
      });
      expect(r.code).toBe(1);
      const out = r.stderr.split('\n').filter(Boolean);
      expect(out.length).toBeGreaterThan(0);
      for (const line of out) expect(JSON.parse(line)).toMatchObject({ level: expect.any(String), time: expect.any(String), msg: expect.any(String) });
      expect(out.join('\n')).toMatch(/cannot listen on .*the port is in use/);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('never writes a token, and every line is JSON', async () => {
    const all = svc.output();
    expect(tokens.length).toBeGreaterThanOrEqual(7);
    for (const token of tokens) expect(all.includes(token), `a line holds ${token.slice(0, 8)}…`).toBe(false);
    // Nothing shaped like one either.
    expect(all).not.toMatch(/key_[A-Za-z0-9_-]{43}|mcp[car]_[0-9a-f]{32}\.[A-Za-z0-9_-]{43}/);
    expect(lines().length).toBeGreaterThan(20);
  });
});

/**
 * The CLI's failure contract (spec §9), through the real `sites` executable: every failure
 * is one line on stderr and exit status 1, never silence and never a stack trace; status 2
 * only for bad usage. Also the service answering its own listen address, the `keys list`
 * table and the start-up line of `sites serve`.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { gunzipSync } from 'node:zlib';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../support/http.ts';
import { freePort, SERVE_NODE_FLAGS, startService, type RunningService } from '../support/service.ts';

const BIN = resolve(import.meta.dirname, '..', '..', 'bin', 'sites.mjs');
const FAST = 5_000;
let svc: RunningService;
let work: string;
/** 3 files, 3 MB of incompressible bytes: the upload is still streaming when the server refuses it. */
let big: string;
let admin: string;

beforeAll(async () => {
  svc = await startService();
  work = await mkdtemp(join(tmpdir(), 'sites-cli-failures-'));
  big = join(work, 'big');
  await mkdir(big);
  await writeFile(join(big, 'index.html'), Buffer.concat([Buffer.from('<h1>big</h1><!--'), randomBytes(1_000_000)]));
  await writeFile(join(big, 'a.bin'), randomBytes(1_000_000));
  await writeFile(join(big, 'b.bin'), randomBytes(1_000_000));
  admin = await svc.createKey(['--name', 'admin', '--admin']);
});
afterAll(async () => {
  await svc?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

/** The contract for a failure: exactly one `sites: …` line on stderr, no stack frames, nothing on stdout. */
function expectOneLine(r: { code: number; stdout: string; stderr: string }, code: number): string {
  expect(r.stderr).not.toMatch(/^\s+at /m);
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^sites: \S/);
  expect(r.code, r.stderr).toBe(code);
  expect(r.stdout).toBe('');
  return lines[0]!;
}

async function timed<T>(run: () => Promise<T>): Promise<T> {
  const started = Date.now();
  const result = await run();
  expect(Date.now() - started).toBeLessThan(FAST);
  return result;
}

describe('sites publish: every failure is one line and status 1', () => {
  it('a wrong key on a 3-file, 3 MB folder: the refusal the server sent early, not silence and status 13', async () => {
    const r = await timed(() => svc.cli(['publish', big, '--site', 'docs/app', '--title', 'App', '--key', 'key_WRONG', '--url', svc.url]));
    expect(expectOneLine(r, 1)).toBe('sites: publish failed (401): unknown, expired or revoked API key');
  });

  it('a key without the grant: the 403 and its reason', async () => {
    const other = await svc.createKey(['--name', 'other-group', '--grant', 'other:publish']);
    const r = await timed(() => svc.cli(['publish', big, '--site', 'docs/app', '--title', 'App', '--key', other, '--url', svc.url]));
    expect(expectOneLine(r, 1)).toMatch(/^sites: publish failed \(403\): .*publish.*docs\/app/);
  });

  it('the server down: "cannot reach", no stack trace', async () => {
    const port = await freePort();
    const r = await timed(() => svc.cli(['publish', big, '--site', 'docs/app', '--key', admin, '--url', `http://127.0.0.1:${port}`]));
    expect(expectOneLine(r, 1)).toBe(`sites: cannot reach http://127.0.0.1:${port} (connection refused) — is the service running?`);
  });

  it('a folder that does not exist', async () => {
    const r = await svc.cli(['publish', join(work, 'nope'), '--site', 'docs/app', '--key', admin, '--url', svc.url]);
    expect(expectOneLine(r, 1)).toBe(`sites: folder ${join(work, 'nope')} does not exist`);
  });

  it('a folder without index.html', async () => {
    const dir = join(work, 'no-index');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'page.html'), '<p>no home page</p>');
    const r = await svc.cli(['publish', dir, '--site', 'docs/app', '--key', admin, '--url', svc.url]);
    expect(expectOneLine(r, 1)).toMatch(/^sites: .*no-index has no index\.html/);
  });

  it('an unknown flag or a missing argument is bad usage: status 2, one line', async () => {
    expect(expectOneLine(await svc.cli(['publish', big, '--site', 'docs/app', '--key', admin, '--bogus']), 2)).toBe('sites: unknown option --bogus');
    // A typo as the last word is named as the unknown flag, not as "needs a value".
    expect(expectOneLine(await svc.cli(['keys', 'list', '--jsn']), 2)).toBe('sites: unknown option --jsn');
    expect(expectOneLine(await svc.cli(['publish', big, '--key', admin]), 2)).toMatch(/--site/);
    expect(expectOneLine(await svc.cli(['publish', big, '--site']), 2)).toBe('sites: --site needs a value');
    expect(expectOneLine(await svc.cli(['frobnicate']), 2)).toMatch(/unknown command "frobnicate"/);
  });

  it('a server that answers early and resets the connection mid-upload: its JSON error is the line', async () => {
    // The CLI sends a small manifest first and uploads afterwards (spec §10), so this server
    // takes the manifest (asking for every file) and refuses an upload once 64 KiB of it arrived.
    const refusing = await rawServer((socket) => {
      let head = Buffer.alloc(0);
      let seen = 0;
      let uploading = false;
      socket.on('data', (chunk: Buffer) => {
        if (socket.destroyed) return;
        if (!uploading) {
          head = Buffer.concat([head, chunk]);
          const end = head.indexOf('\r\n\r\n');
          if (end < 0) return;
          const headers = head.subarray(0, end).toString('latin1');
          if (headers.startsWith('POST /ingest/deploys ')) {
            const length = Number(/\r\ncontent-length: *(\d+)/i.exec(headers)?.[1] ?? 0);
            if (head.length < end + 4 + length) return;
            const raw = head.subarray(end + 4, end + 4 + length);
            const files = JSON.parse((/\r\ncontent-encoding: *gzip/i.test(headers) ? gunzipSync(raw) : raw).toString()).files as Record<string, string>;
            const created = JSON.stringify({ id: 'd1', required: [...new Set(Object.values(files))], expires_at: new Date(Date.now() + 3_600_000).toISOString() });
            socket.write(`HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nContent-Length: ${created.length}\r\n\r\n${created}`);
            head = head.subarray(end + 4 + length);
            return;
          }
          uploading = true;
          seen = head.length;
        } else seen += chunk.length;
        if (seen < 64 * 1024) return;
        const body = JSON.stringify({ error: 'go away early', code: 'unauthenticated' });
        socket.write(`HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`);
        socket.destroy(); // unread data in the buffer: the peer gets a reset, not a clean close
      });
    });
    const hangUp = await rawServer((socket) => socket.once('data', () => socket.destroy()));
    try {
      const r = await timed(() => svc.cli(['publish', big, '--site', 'docs/app', '--key', admin, '--url', `http://127.0.0.1:${port(refusing)}`]));
      expect(expectOneLine(r, 1)).toMatch(/^sites: upload of (index\.html|a\.bin|b\.bin) failed \(401\): go away early$/);
      const cut = await timed(() => svc.cli(['publish', big, '--site', 'docs/app', '--key', admin, '--url', `http://127.0.0.1:${port(hangUp)}`]));
      expect(expectOneLine(cut, 1)).toMatch(/closed the connection during the upload without an answer|connection reset/);
    } finally {
      refusing.close();
      hangUp.close();
    }
  });
});

describe('the other commands fail in one line too', () => {
  it('keys, mcp, replay and an unknown capability', async () => {
    expect(expectOneLine(await svc.cli(['keys', 'revoke', '--id', '999']), 1)).toBe('sites: no key 999');
    expect(expectOneLine(await svc.cli(['mcp', 'revoke', '--id', 'nope']), 1)).toMatch(/nope/);
    expect(expectOneLine(await svc.cli(['keys', 'create', '--name', 'x', '--grant', 'docs:fly']), 2)).toMatch(/unknown capability "fly"/);
    expect(expectOneLine(await svc.cli(['keys', 'create', '--name', 'x', '--expires-in', 'soon']), 2)).toMatch(/--expires-in/);
    // The running service holds the projector lease.
    expect(expectOneLine(await svc.cli(['replay']), 1)).toMatch(/running service holds the projector lease/);
    expect(expectOneLine(await svc.cli(['gc', 'now']), 2)).toBe('sites: unexpected argument "now"');
  });

  it('serve on a port in use ends at once with one line (it used to stay up, silent)', async () => {
    const r = await timed(() => serve({ SITES_LISTEN_ADDR: `127.0.0.1:${svc.port}` }));
    expect(expectOneLine(r, 1)).toBe(`sites: cannot listen on 127.0.0.1:${svc.port}: the port is in use (another sites serve?); stop it or set SITES_LISTEN_ADDR`);
  });

  it('serve with a bad configuration value names the variable', async () => {
    const r = await timed(() => serve({ SITES_LISTEN_ADDR: 'localhost' }));
    expect(expectOneLine(r, 1)).toMatch(/^sites: configuration error: SITES_LISTEN_ADDR/);
  });
});

describe('the service answers its own listen address', () => {
  it('Host 127.0.0.1:PORT is the apex: /healthz, /api/me and a publish with --url http://127.0.0.1:PORT', async () => {
    const ip = `http://127.0.0.1:${svc.port}`; // fetch sends Host: 127.0.0.1:PORT
    expect(await (await fetch(`${ip}/healthz`)).json()).toEqual({ ok: true });
    const me = await call(ip, 'GET', '/api/me', { key: admin });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ base_domain: 'localhost' });
    const dir = join(work, 'small');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'index.html'), '<h1>by IP</h1>');
    const r = await svc.cli(['publish', dir, '--site', 'docs/by-ip', '--title', 'By IP', '--key', admin, '--url', ip]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^published 1 file \\(1 new, 14 B uploaded\\) to ${svc.siteUrl('docs/by-ip').replace(/\./g, '\\.')} \\(revision \\d{8}T\\d{6}\\.\\d{9}Z\\)\n$`));
    // Without --url the CLI finds the service of this shell's SITES_LISTEN_ADDR, as localhost.
    const again = await svc.cli(['publish', dir, '--site', 'docs/by-ip', '--key', admin]);
    expect(again.code, again.stderr).toBe(0);
  });
});

describe('output', () => {
  it('keys list: a header row and aligned columns; --json unchanged', async () => {
    await svc.createKey(['--name', 'a much longer key name', '--grant', 'docs:publish,unpublish', '--expires-in', '720h']);
    const r = await svc.cli(['keys', 'list']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID +NAME +CREATED +EXPIRES +LAST USED +SCOPE$/);
    for (const column of ['NAME', 'CREATED', 'EXPIRES', 'LAST USED', 'SCOPE']) {
      const at = lines[0]!.indexOf(column);
      for (const line of lines.slice(1)) expect(line[at - 1], `${column} in ${JSON.stringify(line)}`).toBe(' ');
      for (const line of lines.slice(1)) expect(line[at], `${column} in ${JSON.stringify(line)}`).not.toBe(' ');
    }
    const long = lines.find((l) => l.includes('a much longer key name'))!;
    expect(long).toMatch(/\d{4}-\d\d-\d\dT\d\d:\d\dZ +\d{4}-\d\d-\d\dT\d\d:\d\dZ +never +publish,unpublish on group docs$/);
    expect(lines.find((l) => /\badmin\b/.test(l))).toMatch(/admin \(everything\)$/);
    const json = JSON.parse((await svc.cli(['keys', 'list', '--json'])).stdout);
    expect(json.find((k: { name: string }) => k.name === 'a much longer key name')).toMatchObject({ grants: [{ kind: 'group', target: 'docs', permissions: ['publish', 'unpublish'] }] });
  });

  it('sites serve starts with one line: address, URL, base domain, stores and versioning', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'sites-banner-'));
    const listen = await freePort();
    try {
      const r = await timed(() =>
        serve({ SITES_LISTEN_ADDR: `127.0.0.1:${listen}`, SITES_DATA_DIR: dataDir, SITES_LOG_LEVEL: 'info', SITES_VERSIONING_ENABLED: 'true', SITES_VERSIONING_KEEP: '3' }, /serving/),
      );
      const line = r.stderr.split('\n').find((l) => l.includes('serving'))!;
      expect(line).toContain(
        `serving http://localhost:${listen}/ on 127.0.0.1:${listen} (base domain localhost) — events: SQLite (${join(dataDir, 'events.sqlite')}), ` +
          `read model: SQLite (${join(dataDir, 'readmodel.sqlite')}), files: folder ${join(dataDir, 'blobs')}, versioning on (keep 3)`,
      );
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

/**
 * Runs `sites serve` with the test service's environment plus `env`; returns when it
 * exits, or (with `until`) stops it once stderr matches.
 */
function serve(env: Record<string, string>, until?: RegExp): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [...SERVE_NODE_FLAGS, BIN, 'serve'], { env: { ...process.env, ...svc.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), FAST);
    child.stdout.on('data', (c: Buffer) => (stdout += c));
    child.stderr.on('data', (c: Buffer) => {
      stderr += c;
      if (until?.test(stderr)) child.kill('SIGTERM');
    });
    child.on('error', fail);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code: code ?? -1, stdout, stderr });
    });
  });
}

async function rawServer(onConnection: (socket: import('node:net').Socket) => void): Promise<Server> {
  const server = createServer((socket) => {
    socket.on('error', () => {});
    onConnection(socket);
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  return server;
}

const port = (server: Server) => (server.address() as { port: number }).port;

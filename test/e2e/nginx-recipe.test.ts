/**
 * deploy/nginx.conf, exercised: the recipe is rendered with test values, checked with
 * `nginx -t`, run by Debian's nginx as a child process (everything it writes stays in a temp
 * prefix), and driven with real requests. Behind it: a header tap (records what nginx passes
 * on) in front of the real service, and a tiny auth service that signs in whoever has the
 * test cookie as `admin`.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHeaderTap, type HeaderTap } from '../support/header-tap.ts';
import { freePort, startService, type RunningService } from '../support/service.ts';

const NGINX = process.env.NGINX_PATH ?? '/usr/sbin/nginx';
const RECIPE = resolve(import.meta.dirname, '..', '..', 'deploy', 'nginx.conf');
const COOKIE = 'test_session=signed-in';
const exec = promisify(execFile);

function nginxAvailable(): boolean {
  if (existsSync(NGINX)) return true;
  if (process.env.CI) throw new Error(`nginx not found at ${NGINX}: install it (apt-get install -y nginx); the nginx recipe test must run in CI`);
  console.log(`skipped: no nginx at ${NGINX} (apt-get install -y nginx)`);
  return false;
}

/**
 * The recipe with test values. Every replacement must match (the counts are checked), so a
 * change to the recipe that this rendering no longer covers fails here instead of testing
 * something else. TLS is left out (plain HTTP on loopback ports); everything else is the file.
 */
function renderRecipe(recipe: string, v: { apex: string; port: number; redirectPort: number; upstream: number; auth: number }): string {
  let out = recipe;
  const replace = (from: RegExp, to: string, count: number | 'some') => {
    const hits = out.match(from)?.length ?? 0;
    if (count === 'some' ? hits === 0 : hits !== count) throw new Error(`renderRecipe: expected ${count} × ${from}, found ${hits}`);
    out = out.replace(from, to);
  };
  replace(/^( *server_name )sites\.example\.com;/gm, `$1${v.apex};`, 1);
  replace(/^( *server_name )\*\.sites\.example\.com;/gm, `$1*.${v.apex};`, 1);
  replace(/^( *server_name )sites\.example\.com \*\.sites\.example\.com;/gm, `$1${v.apex} *.${v.apex};`, 1);
  replace(/^ *listen 443 ssl http2;\n/gm, `    listen 127.0.0.1:${v.port};\n`, 2);
  replace(/^ *listen 80;\n/gm, `    listen 127.0.0.1:${v.redirectPort};\n`, 1);
  replace(/^ *listen \[::\]:\d+[^;]*;\n/gm, '', 3);
  replace(/^ *ssl_certificate(_key)? [^;]+;.*\n/gm, '', 4);
  replace(/server 127\.0\.0\.1:8080;/g, `server 127.0.0.1:${v.upstream};`, 1);
  replace(/server 127\.0\.0\.1:9091;/g, `server 127.0.0.1:${v.auth};`, 1);
  return out;
}

/** The main config around the recipe (which belongs inside `http {}`): every path in `dir`. */
function mainConfig(dir: string): string {
  return `worker_processes 1;
events { worker_connections 256; }
http {
    access_log ${dir}/access.log;
    client_body_temp_path ${dir}/tmp/body;
    proxy_temp_path ${dir}/tmp/proxy;
    fastcgi_temp_path ${dir}/tmp/fastcgi;
    uwsgi_temp_path ${dir}/tmp/uwsgi;
    scgi_temp_path ${dir}/tmp/scgi;
    include ${dir}/sites.conf;
}
`;
}

type AuthCall = { url: string; headers: http.IncomingHttpHeaders; bodyBytes: number };

/** The sign-in service: 200 + `Remote-User: admin` with the test cookie, 401 without. */
async function startAuth(): Promise<{ port: number; calls: AuthCall[]; close(): Promise<void> }> {
  const calls: AuthCall[] = [];
  const server = http.createServer((req, res) => {
    let bodyBytes = 0;
    req.on('data', (c: Buffer) => (bodyBytes += c.length));
    req.on('end', () => {
      calls.push({ url: req.url ?? '', headers: req.headers, bodyBytes });
      const cookies = (req.headers.cookie ?? '').split(/;\s*/);
      if (cookies.includes(COOKIE)) res.writeHead(200, { 'Remote-User': 'admin' }).end();
      else res.writeHead(401).end();
    });
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  return {
    port: (server.address() as AddressInfo).port,
    calls,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

/** Raw HTTP/1.1 over a socket, for requests fetch cannot make (a lying Content-Length). */
function rawRequest(port: number, head: string): Promise<string> {
  return new Promise((done, fail) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(head));
    let answer = '';
    socket.setTimeout(5000, () => socket.destroy(new Error('raw request timed out')));
    socket.on('data', (c: Buffer) => {
      answer += c.toString('latin1');
      if (/\r\n\r\n[\s\S]*\}\n?$/.test(answer)) socket.end();
    });
    socket.on('close', () => done(answer));
    socket.on('error', fail);
  });
}

const runnable = nginxAvailable();

describe.skipIf(!runnable)('deploy/nginx.conf in front of the real service', () => {
  let svc: RunningService;
  let tap: HeaderTap;
  let auth: Awaited<ReturnType<typeof startAuth>>;
  let dir: string;
  let nginx: ChildProcess | undefined;
  let nginxLog = '';
  let port: number;
  let redirectPort: number;
  let apex: string;
  let adminKey: string;
  let publishKey: string;
  let work: string;

  const site = (path: string) => `http://${path.split('/').reverse().join('.')}.localhost:${port}/`;

  beforeAll(async () => {
    svc = await startService();
    tap = await startHeaderTap(svc.port);
    auth = await startAuth();
    dir = await mkdtemp(join(tmpdir(), 'sites-nginx-'));
    work = join(dir, 'work');
    await mkdir(join(dir, 'tmp'), { recursive: true });
    await mkdir(work);
    // Run as root, nginx's workers drop to `nobody` and must reach their temp dirs.
    await chmod(dir, 0o755);
    port = await freePort();
    redirectPort = await freePort();
    apex = `http://localhost:${port}`;
    const recipe = await readFile(RECIPE, 'utf8');
    await writeFile(join(dir, 'sites.conf'), renderRecipe(recipe, { apex: 'localhost', port, redirectPort, upstream: tap.port, auth: auth.port }));
    await writeFile(join(dir, 'nginx.conf'), mainConfig(dir));
    const args = ['-p', `${dir}/`, '-e', join(dir, 'error.log'), '-c', join(dir, 'nginx.conf')];
    const globals = `daemon off; master_process on; pid ${join(dir, 'nginx.pid')}; error_log ${join(dir, 'error.log')} warn;`;
    const check = await exec(NGINX, [...args, '-g', globals, '-t']).catch((e: { stderr?: string }) => {
      throw new Error(`nginx -t failed: ${e.stderr}`);
    });
    expect(check.stderr).toContain('syntax is ok');

    const child = spawn(NGINX, [...args, '-g', globals], { stdio: ['ignore', 'pipe', 'pipe'] });
    nginx = child;
    child.stdout!.on('data', (c: Buffer) => (nginxLog += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (nginxLog += c.toString()));
    const deadline = Date.now() + 5000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`nginx exited: ${nginxLog}${await readFile(join(dir, 'error.log'), 'utf8').catch(() => '')}`);
      const up = await fetch(`${apex}/healthz`).then((r) => r.ok, () => false);
      if (up) break;
      if (Date.now() > deadline) throw new Error(`nginx did not answer: ${nginxLog}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    adminKey = await svc.createKey(['--name', 'nginx-admin', '--admin']);
    publishKey = await svc.createKey(['--name', 'nginx-ci', '--grant', 'docs:publish']);
  });

  afterAll(async () => {
    const child = nginx;
    if (child && child.exitCode === null && child.signalCode === null) {
      await new Promise<void>((done) => {
        child.once('exit', () => done());
        child.kill('SIGTERM'); // fast shutdown of the master and its workers
      });
    }
    if (process.env.SITES_TEST_VERBOSE && dir) console.log(await readFile(join(dir, 'error.log'), 'utf8').catch(() => ''));
    await tap?.close();
    await auth?.close();
    await svc?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const publish = (key: string, slug: string, html: string, extra: Record<string, string> = {}) => {
    const form = new FormData();
    form.append('meta', JSON.stringify({ group: 'docs', slug, title: slug }));
    form.append('index', new Blob([html]), 'index.html');
    return fetch(`${apex}/ingest/sites`, { method: 'POST', headers: { Authorization: `Bearer ${key}`, ...extra }, body: form });
  };

  it('the management API: 401 in the error shape without a sign-in, the user with one', async () => {
    const anonymous = await fetch(`${apex}/api/me`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('content-type')).toContain('application/json');
    expect(await anonymous.json()).toMatchObject({ code: 'unauthenticated' });
    expect(tap.seen('/api/me')).toHaveLength(0); // refused by nginx, never reached the service

    const signedIn = await fetch(`${apex}/api/me`, { headers: { Cookie: COOKIE } });
    expect(signedIn.status).toBe(200);
    expect(await signedIn.json()).toMatchObject({ user: 'admin', is_admin: true });
    const reached = tap.seen('/api/me');
    expect(reached).toHaveLength(1);
    expect(reached[0]!.headers['remote-user']).toBe('admin');
  });

  it("a client's own Remote-User is never honoured nor passed on", async () => {
    for (const name of ['Remote-User', 'remote-user', 'REMOTE-USER']) {
      const forged = await fetch(`${apex}/api/me?forged=${name}`, { headers: { [name]: 'admin' } });
      expect(forged.status).toBe(401);
    }
    expect(tap.requests.filter((r) => r.url.startsWith('/api/me?forged='))).toHaveLength(0);

    // Signed in as admin while claiming to be someone else: the service hears only the proxy.
    const both = await fetch(`${apex}/api/me?both`, { headers: { Cookie: COOKIE, 'Remote-User': 'mallory' } });
    expect(await both.json()).toMatchObject({ user: 'admin' });
    const seen = tap.seen('/api/me?both')[0]!;
    expect(seen.rawHeaders.filter((h, i) => i % 2 === 0 && h.toLowerCase() === 'remote-user')).toHaveLength(1);
    expect(seen.headers['remote-user']).toBe('admin');

    // On the open paths nginx lets through, the forged header is dropped on the way.
    for (const path of ['/healthz', '/ingest/sites/docs/nothing/revisions', '/.well-known/oauth-authorization-server']) {
      await fetch(`${apex}${path}`, { headers: { 'Remote-User': 'admin', Remote_User: 'admin' } });
      const reached = tap.seen(path).at(-1);
      expect(reached, path).toBeDefined();
      expect(reached!.headers['remote-user'], path).toBeUndefined();
      expect(reached!.headers.remote_user, path).toBeUndefined();
    }
    // And the sign-in service itself is never handed a client's identity header or a body.
    expect(auth.calls.length).toBeGreaterThan(0);
    for (const call of auth.calls) {
      expect(call.headers['remote-user']).toBeUndefined();
      expect(call.bodyBytes).toBe(0);
    }
  });

  it("a client's query string does not reach the sign-in service (authelia_url would choose where people sign in)", async () => {
    const before = auth.calls.length;
    const path = '/api/me?authelia_url=https://evil.example/&rd=https://evil.example/';
    expect((await fetch(`${apex}${path}`, { headers: { Cookie: COOKIE } })).status).toBe(200);
    const asked = auth.calls.slice(before);
    expect(asked.map((c) => c.url)).toEqual(['/api/authz/auth-request']);
    expect(asked[0]!.headers['x-forwarded-uri']).toBe(path);
  });

  it('no path trick reaches the service with an identity it did not get from the sign-in service', async () => {
    const tricks = ['/ingest/../api/me', '/ingest/%2e%2e/api/me', '/ingest/..%2Fapi/me', '/healthz/../api/me', '//api/me', '/.well-known/../api/me', '/mcp/../api/me', '/api/me/', '/API/me'];
    for (const path of tricks) {
      const before = tap.requests.length;
      const answer = await rawRequest(port, `GET ${path} HTTP/1.1\r\nHost: localhost:${port}\r\nRemote-User: admin\r\nConnection: close\r\n\r\n`);
      expect(answer, path).not.toMatch(/"user":"admin"/);
      for (const reached of tap.requests.slice(before)) expect(reached.headers['remote-user'], path).toBeUndefined();
    }
  });

  it('the portal sends people without a sign-in to the sign-in page', async () => {
    const res = await fetch(`${apex}/`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toMatch(/^https:\/\/auth\.example\.com\/\?rd=http:\/\/localhost:\d+\/$/);
    const portal = await fetch(`${apex}/`, { headers: { Cookie: COOKIE } });
    expect(portal.status).toBe(200);
    expect(portal.headers.get('content-type')).toContain('text/html');
  });

  it('publishing with a key needs no sign-in, and the site host serves it', async () => {
    const res = await publish(publishKey, 'app', '<h1>through nginx</h1>');
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ group: 'docs', slug: 'app' });
    const page = await fetch(site('docs/app'));
    expect(page.status).toBe(200);
    expect(await page.text()).toBe('<h1>through nginx</h1>');
    // A wrong key is the service's 401, in its error shape.
    const wrong = await publish('key_wrong', 'app', 'x');
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ code: 'unauthenticated' });
  });

  it('a site host request never reaches the service with a Remote-User', async () => {
    const res = await fetch(`${site('docs/app')}?with-header`, { headers: { 'Remote-User': 'admin', Cookie: COOKIE } });
    expect(res.status).toBe(200);
    const reached = tap.seen('/?with-header');
    expect(reached).toHaveLength(1);
    expect(reached[0]!.headers.host).toBe('app.docs.localhost');
    expect(reached[0]!.headers['remote-user']).toBeUndefined();
    expect(auth.calls.some((c) => String(c.headers['x-forwarded-host'] ?? '').startsWith('app.docs.'))).toBe(false);
  });

  it('keys work on /api without a sign-in and never carry an identity', async () => {
    const listed = await fetch(`${apex}/api/sites?via=key`, { headers: { Authorization: `Bearer ${adminKey}`, 'Remote-User': 'admin' } });
    expect(listed.status).toBe(200);
    expect((await listed.json()).count).toBeGreaterThan(0);
    expect(tap.seen('/api/sites?via=key')[0]!.headers['remote-user']).toBeUndefined();
    const bogus = await fetch(`${apex}/api/me?via=bogus`, { headers: { Authorization: 'Bearer key_bogus', 'Remote-User': 'admin' } });
    expect(bogus.status).toBe(401);
    expect(tap.seen('/api/me?via=bogus')[0]!.headers['remote-user']).toBeUndefined();
  });

  it("the service's cross-origin guard still sees the browser's Origin through nginx", async () => {
    const body = JSON.stringify({ name: 'from-portal', grants: [{ kind: 'group', target: 'docs', permissions: ['publish'] }] });
    const headers = { Cookie: COOKIE, 'Content-Type': 'application/json' };
    const fromPortal = await fetch(`${apex}/api/keys`, { method: 'POST', body, headers: { ...headers, Origin: apex, 'Sec-Fetch-Site': 'same-origin' } });
    expect(fromPortal.status).toBe(201);
    const fromSite = await fetch(`${apex}/api/keys`, { method: 'POST', body, headers: { ...headers, Origin: site('docs/app').slice(0, -1), 'Sec-Fetch-Site': 'same-site' } });
    expect(fromSite.status).toBe(403);
    expect(await fromSite.json()).toMatchObject({ code: 'forbidden' });
  });

  it('the machine paths pass without a sign-in: MCP, OAuth, discovery, health', async () => {
    const mcp = await fetch(`${apex}/mcp`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    expect(mcp.status).toBe(401); // the service's own answer: a connector needs a token
    expect(tap.seen('/mcp').length).toBeGreaterThan(0);
    const meta = await fetch(`${apex}/.well-known/oauth-authorization-server`);
    expect(meta.status).toBe(200);
    const token = await fetch(`${apex}/mcp/oauth/token`, { method: 'POST', body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'x' }) });
    expect(token.status).toBeGreaterThanOrEqual(400);
    expect(tap.seen('/mcp/oauth/token')).toHaveLength(1);
    const register = await fetch(`${apex}/mcp/oauth/register`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    expect(register.status).toBe(400);
    expect(tap.seen('/mcp/oauth/register')).toHaveLength(1);
    // CI downloads the client and reads the API description without anyone signed in.
    for (const path of ['/cli/sites.mjs', '/api/openapi.json']) expect((await fetch(`${apex}${path}`)).status, path).toBe(200);
    // The consent screen is for people: it needs a sign-in.
    const consent = await fetch(`${apex}/mcp/oauth/authorize?client_id=x`, { redirect: 'manual' });
    expect(consent.status).toBe(302);
  });

  it('uploads stream through (the CLI sends chunked bodies), oversized ones answer 413 in the error shape', async () => {
    await mkdir(join(work, 'cli-site', 'css'), { recursive: true });
    await writeFile(join(work, 'cli-site', 'index.html'), '<h1>cli through nginx</h1>');
    await writeFile(join(work, 'cli-site', 'css', 'a.css'), 'h1{}'.repeat(50_000));
    const r = await svc.cli(['publish', join(work, 'cli-site'), '--site', 'docs/cli', '--title', 'CLI', '--url', apex, '--key', publishKey]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(await (await fetch(`${site('docs/cli')}css/a.css`)).text()).toHaveLength(200_000);

    const answer = await rawRequest(
      port,
      `POST /ingest/sites HTTP/1.1\r\nHost: localhost:${port}\r\nAuthorization: Bearer ${publishKey}\r\n` +
        `Content-Type: multipart/form-data; boundary=x\r\nContent-Length: ${65 * 1024 * 1024}\r\n\r\n`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toMatch(/content-type: application\/json/i);
    expect(answer).toContain('"code":"too_large"');
  });

  it('plain HTTP redirects to HTTPS', async () => {
    const res = await fetch(`http://app.docs.localhost:${redirectPort}/x?y`, { redirect: 'manual' });
    expect(res.status).toBe(301);
    expect(res.headers.get('location')).toBe('https://app.docs.localhost/x?y');
  });
});

/**
 * deploy/Caddyfile, exercised: the recipe is validated as shipped, then run by Debian's
 * Caddy as a child process with its own settings (on-demand TLS asking /tls/ask, forward
 * auth, the header strip, the catch-all for sites) and only what a test machine needs added
 * to its global options: certificates from Caddy's local CA instead of an ACME CA, high
 * ports on loopback, no admin endpoint, its data in a temp dir. Requests go over real TLS,
 * verified against that CA's root and the name asked for. Behind Caddy: a header tap
 * (records what reaches the service and its answers, Caddy's ask calls included) in front of
 * the real service, and a tiny sign-in service.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import tls, { type PeerCertificate } from 'node:tls';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../support/http.ts';
import { startHeaderTap, type HeaderTap } from '../support/header-tap.ts';
import { publish } from '../support/publish.ts';
import { putPreview } from '../support/previews.ts';
import { freePort, startService, type RunningService } from '../support/service.ts';

const CADDY = process.env.CADDY_PATH ?? '/usr/bin/caddy';
const RECIPE = resolve(import.meta.dirname, '..', '..', 'deploy', 'Caddyfile');
const BASE = 'sites.test';
const SIGNED_IN = 'test_session=signed-in';
/** A session the sign-in service lets through without naming anyone (an Authelia bypass rule does that). */
const NOBODY = 'test_session=bypass';
const exec = promisify(execFile);

function caddyAvailable(): boolean {
  if (existsSync(CADDY)) return true;
  if (process.env.CI) throw new Error(`caddy not found at ${CADDY}: install it (apt-get install -y caddy); the Caddy recipe test must run in CI`);
  console.log(`skipped: no caddy at ${CADDY} (apt-get install -y caddy)`);
  return false;
}

/**
 * The recipe with what a test machine needs in its global options. Everything else is the
 * file as shipped; the on-demand settings this test relies on must be there (checked), so a
 * recipe that lost them fails here instead of passing on a rendering of its own.
 */
function renderRecipe(recipe: string, v: { httpPort: number; httpsPort: number }): string {
  for (const needed of [/^\ton_demand_tls \{\n\t\task http:\/\/\{\$SITES_ASK:[^}]+\}\/tls\/ask\n\t\}$/m, /^https:\/\/ \{\n\ttls \{\n\t\ton_demand\n\t\}$/m, /^\{\$SITES_DOMAIN\} \{$/m]) {
    if (!needed.test(recipe)) throw new Error(`renderRecipe: the recipe no longer has ${needed}`);
  }
  const globals = ['local_certs', 'skip_install_trust', 'admin off', 'default_bind 127.0.0.1', `http_port ${v.httpPort}`, `https_port ${v.httpsPort}`];
  const hits = recipe.match(/^\{\n/gm)?.length ?? 0;
  if (hits !== 1) throw new Error(`renderRecipe: expected one global options block, found ${hits}`);
  return recipe.replace(/^\{\n/m, `{\n${globals.map((g) => `\t${g}\n`).join('')}`);
}

type AuthCall = { url: string; headers: http.IncomingHttpHeaders };

/** The sign-in service: 200 + `Remote-User: admin` with the test cookie, 200 naming nobody with the bypass one, 401 otherwise. */
async function startAuth(): Promise<{ port: number; calls: AuthCall[]; close(): Promise<void> }> {
  const calls: AuthCall[] = [];
  const server = http.createServer((req, res) => {
    calls.push({ url: req.url ?? '', headers: req.headers });
    const cookies = (req.headers.cookie ?? '').split(/;\s*/);
    if (cookies.includes(SIGNED_IN)) res.writeHead(200, { 'Remote-User': 'admin' }).end();
    else if (cookies.includes(NOBODY)) res.writeHead(200).end();
    else res.writeHead(401, { 'Content-Type': 'text/plain' }).end('sign in first\n');
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

type Answer = { status: number; body: string; headers: http.IncomingHttpHeaders; cert: PeerCertificate };

describe.skipIf(!caddyAvailable())('deploy/Caddyfile in front of the real service, over HTTPS', () => {
  let svc: RunningService;
  let tap: HeaderTap;
  let auth: Awaited<ReturnType<typeof startAuth>>;
  let dir: string;
  let caddy: ChildProcess | undefined;
  let caddyLog = '';
  let httpPort: number;
  let httpsPort: number;
  let root: Buffer;
  let adminKey: string;
  let env: NodeJS.ProcessEnv;
  /** Every certificate a test saw, by the name it asked for: printed at the end for the record. */
  const subjects = new Map<string, string>();

  /** HTTPS to Caddy on loopback with SNI and Host `name`, trusting only Caddy's local root. */
  const get = (name: string, path = '/', headers: Record<string, string> = {}): Promise<Answer> =>
    new Promise((done, fail) => {
      const req = https.request({ host: '127.0.0.1', port: httpsPort, servername: name, path, ca: root, agent: false, headers: { Host: name, ...headers } }, (res) => {
        const cert = (res.socket as tls.TLSSocket).getPeerCertificate();
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => done({ status: res.statusCode ?? 0, body, headers: res.headers, cert }));
      });
      req.setTimeout(10_000, () => req.destroy(new Error(`https://${name}${path} timed out`)));
      req.on('error', fail);
      req.end();
    });

  /** A bare TLS handshake for `name`: the certificate, or the reason there is none. */
  const handshake = (name: string): Promise<{ cert?: PeerCertificate; error?: string }> =>
    new Promise((done) => {
      const socket = tls.connect({ host: '127.0.0.1', port: httpsPort, servername: name, ca: root });
      socket.setTimeout(10_000, () => socket.destroy(new Error('handshake timed out')));
      socket.once('secureConnect', () => {
        const cert = socket.getPeerCertificate();
        socket.end();
        done({ cert });
      });
      socket.once('error', (e: NodeJS.ErrnoException) => done({ error: e.code ?? e.message }));
    });

  const record = (name: string, cert: PeerCertificate) =>
    subjects.set(name, `subject ${JSON.stringify(cert.subject ?? {})}, ${cert.subjectaltname}, issuer CN ${cert.issuer?.CN}, valid to ${cert.valid_to}`);

  const asks = (name: string) => tap.requests.filter((r) => r.url === `/tls/ask?domain=${name}`);

  beforeAll(async () => {
    svc = await startService({ env: { SITES_BASE_DOMAIN: BASE } });
    tap = await startHeaderTap(svc.port);
    auth = await startAuth();
    adminKey = await svc.createKey(['--name', 'caddy-admin', '--admin']);
    for (const [group, slug] of [['', 'demo'], ['grp/sub', 'a'], ['', 'gone']]) {
      const r = await publish(svc.url, adminKey, { group, slug, title: slug }, { index: `<h1>${slug} over https</h1>` });
      expect(r.status).toBe(200);
    }
    expect((await call(svc.url, 'DELETE', '/ingest/sites/gone', { key: adminKey })).status).toBe(204);

    dir = await mkdtemp(join(tmpdir(), 'sites-caddy-'));
    httpPort = await freePort();
    httpsPort = await freePort();
    const upstream = `127.0.0.1:${tap.port}`;
    // Caddy keeps its CA, certificates and autosave under XDG_DATA_HOME / XDG_CONFIG_HOME.
    env = { PATH: process.env.PATH, HOME: dir, XDG_DATA_HOME: join(dir, 'data'), XDG_CONFIG_HOME: join(dir, 'config'), SITES_DOMAIN: BASE, SITES_UPSTREAMS: upstream, SITES_ASK: upstream, SITES_AUTH: `127.0.0.1:${auth.port}` };

    // As shipped, with only its one required variable: valid for this Caddy.
    const shipped = await exec(CADDY, ['validate', '--config', RECIPE, '--adapter', 'caddyfile'], { env: { ...env, SITES_UPSTREAMS: '', SITES_ASK: '', SITES_AUTH: '' } }).catch((e: { stderr?: string }) => {
      throw new Error(`caddy validate deploy/Caddyfile failed: ${e.stderr}`);
    });
    expect(shipped.stdout).toContain('Valid configuration');
    const config = join(dir, 'Caddyfile');
    await writeFile(config, renderRecipe(await readFile(RECIPE, 'utf8'), { httpPort, httpsPort }));
    const adapted = JSON.parse((await exec(CADDY, ['adapt', '--config', config, '--adapter', 'caddyfile'], { env })).stdout);
    expect(adapted.apps.tls.automation.on_demand.ask).toBe(`http://${upstream}/tls/ask`);

    const child = spawn(CADDY, ['run', '--config', config, '--adapter', 'caddyfile'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    caddy = child;
    child.stdout!.on('data', (c: Buffer) => (caddyLog += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (caddyLog += c.toString()));
    const rootPath = join(dir, 'data', 'caddy', 'pki', 'authorities', 'local', 'root.crt');
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`caddy exited: ${caddyLog}`);
      if (existsSync(rootPath)) {
        root = await readFile(rootPath);
        const up = await get(BASE, '/healthz').then((r) => r.status === 200, () => false);
        if (up) break;
      }
      if (Date.now() > deadline) throw new Error(`caddy did not answer over HTTPS: ${caddyLog}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }, 60_000);

  afterAll(async () => {
    const child = caddy;
    if (child && child.exitCode === null && child.signalCode === null) {
      await new Promise<void>((done) => {
        child.once('exit', () => done());
        child.kill('SIGTERM');
      });
    }
    if (subjects.size) console.log(`certificates Caddy served:\n${[...subjects].map(([n, s]) => `  ${n}: ${s}`).join('\n')}`);
    if (process.env.SITES_TEST_VERBOSE) console.log(caddyLog);
    await tap?.close();
    await auth?.close();
    await svc?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('the apex, a flat site and a three-label site each get a valid certificate for exactly their name', async () => {
    for (const [name, expected] of [[BASE, '{"ok":true}'], [`demo.${BASE}`, '<h1>demo over https</h1>'], [`a.sub.grp.${BASE}`, '<h1>a over https</h1>']] as const) {
      const path = name === BASE ? '/healthz' : '/';
      const res = await get(name, path); // rejects unless the chain leads to Caddy's root and the name matches
      expect(res.status, name).toBe(200);
      expect(res.body.trim(), name).toBe(expected);
      expect(res.cert.subjectaltname, name).toBe(`DNS:${name}`);
      expect(tls.checkServerIdentity(name, res.cert), name).toBeUndefined();
      record(name, res.cert);
    }
    // The site names were asked about, and the service said yes; the apex's certificate is Caddy's own to obtain.
    for (const name of [`demo.${BASE}`, `a.sub.grp.${BASE}`]) {
      expect(asks(name).length, name).toBeGreaterThan(0);
      expect(asks(name).every((r) => r.status === 200), name).toBe(true);
    }
  });

  it('a name the service does not serve gets no certificate: the ask is refused and the handshake fails', async () => {
    for (const name of [`nothing.${BASE}`, `gone.${BASE}`, `x.a.sub.grp.${BASE}`, 'elsewhere.example']) {
      const result = await handshake(name);
      expect(result.cert, name).toBeUndefined();
      expect(result.error, name).toBeTruthy();
      subjects.set(name, `no certificate (${result.error})`);
    }
    // Caddy asked the service about the names under the apex and was refused each time.
    for (const name of [`nothing.${BASE}`, `gone.${BASE}`, `x.a.sub.grp.${BASE}`, 'elsewhere.example']) {
      expect(asks(name).length, name).toBeGreaterThan(0);
      expect(asks(name).map((r) => r.status), name).toEqual(asks(name).map(() => 404));
    }
  });

  it('a site taken offline gets no new certificate; published again, it does', async () => {
    const name = `later.${BASE}`;
    expect((await handshake(name)).cert).toBeUndefined();
    expect((await publish(svc.url, adminKey, { group: '', slug: 'later', title: 'later' }, { index: '<p>later</p>' })).status).toBe(200);
    const res = await get(name);
    expect(res.status).toBe(200);
    expect(res.cert.subjectaltname).toBe(`DNS:${name}`);
    record(name, res.cert);
  });

  it('a preview host and a permalink host each get a valid certificate for exactly their name; a preview that does not exist and a revision never published get none (spec §14, §15)', async () => {
    expect((await putPreview(svc.url, adminKey, 'grp/sub/a', 'pr-7', { index: '<h1>a preview over https</h1>' })).status).toBe(200);
    for (const [name, expected] of [[`pr-7--a.sub.grp.${BASE}`, '<h1>a preview over https</h1>'], [`v1--demo.${BASE}`, '<h1>demo over https</h1>']] as const) {
      const res = await get(name);
      expect(res.status, name).toBe(200);
      expect(res.body.trim(), name).toBe(expected);
      expect(res.headers['x-robots-tag'], name).toBe('noindex');
      expect(res.cert.subjectaltname, name).toBe(`DNS:${name}`);
      expect(tls.checkServerIdentity(name, res.cert), name).toBeUndefined();
      expect(asks(name).at(-1)!.status, name).toBe(200);
      record(name, res.cert);
    }
    for (const name of [`pr-8--a.sub.grp.${BASE}`, `v9--demo.${BASE}`]) {
      const result = await handshake(name);
      expect(result.cert, name).toBeUndefined();
      expect(asks(name).map((r) => r.status), name).toEqual(asks(name).map(() => 404));
      subjects.set(name, `no certificate (${result.error})`);
    }
  });

  it('a custom domain attached to a site gets a valid certificate for exactly its name and serves the site (spec §15)', async () => {
    const name = 'docs.custom-domain.test';
    expect((await handshake(name)).cert).toBeUndefined(); // not attached yet: refused
    expect(asks(name).map((r) => r.status)).toContain(404);
    expect((await call(svc.url, 'PUT', `/api/sites/demo/domains/${name}`, { key: adminKey })).status).toBe(200);
    const res = await get(name);
    expect(res.status).toBe(200);
    expect(res.body.trim()).toBe('<h1>demo over https</h1>');
    expect(res.cert.subjectaltname).toBe(`DNS:${name}`);
    expect(tls.checkServerIdentity(name, res.cert)).toBeUndefined();
    expect(asks(name).at(-1)!.status).toBe(200);
    record(name, res.cert);
  });

  it('people sign in on the apex; the service hears only the sign-in service\'s Remote-User', async () => {
    const anonymous = await get(BASE, '/api/me?anonymous');
    expect(anonymous.status).toBe(401);
    expect(tap.seen('/api/me?anonymous')).toHaveLength(0);

    const signedIn = await get(BASE, '/api/me?signed-in', { Cookie: SIGNED_IN, 'Remote-User': 'mallory' });
    expect(signedIn.status).toBe(200);
    expect(JSON.parse(signedIn.body)).toMatchObject({ user: 'admin', is_admin: true });
    const reached = tap.seen('/api/me?signed-in');
    expect(reached).toHaveLength(1);
    expect(reached[0]!.rawHeaders.filter((h, i) => i % 2 === 0 && h.toLowerCase() === 'remote-user')).toHaveLength(1);
    expect(reached[0]!.headers['remote-user']).toBe('admin');

    // Let through without a name (a bypass rule), a client's own header must not fill the gap.
    const bypass = await get(BASE, '/api/me?bypass', { Cookie: NOBODY, 'Remote-User': 'admin' });
    expect(bypass.status).toBe(401);
    const passed = tap.seen('/api/me?bypass');
    expect(passed).toHaveLength(1);
    expect(passed[0]!.headers['remote-user']).toBeUndefined();
  });

  it('attack: a query string on the apex does not reach the sign-in service (authelia_url would choose where people are sent to sign in)', async () => {
    const before = auth.calls.length;
    const path = '/api/me?authelia_url=https://evil.example/&rd=https://evil.example/';
    for (const cookie of [SIGNED_IN, 'none']) {
      const res = await get(BASE, path, { Cookie: cookie });
      expect(res.status, cookie).toBe(cookie === SIGNED_IN ? 200 : 401);
    }
    const asked = auth.calls.slice(before);
    expect(asked.map((c) => c.url)).toEqual(['/api/authz/forward-auth', '/api/authz/forward-auth']);
    // The address the person asked for still reaches it, as the page to come back to.
    expect(asked.map((c) => c.headers['x-forwarded-uri'])).toEqual([path, path]);
    // And the service still gets the request's own query.
    expect(tap.seen(path)).toHaveLength(1);
  });

  it('machine paths and keys pass without a sign-in and never carry an identity', async () => {
    for (const path of ['/healthz', '/ingest/sites/docs/nothing/revisions', '/.well-known/oauth-authorization-server', '/cli/sites.mjs', '/api/openapi.json']) {
      const res = await get(BASE, path, { 'Remote-User': 'admin' });
      if (path === '/cli/sites.mjs' || path === '/api/openapi.json') expect(res.status, path).toBe(200);
      const reached = tap.seen(path).at(-1);
      expect(reached, path).toBeDefined();
      expect(reached!.headers['remote-user'], path).toBeUndefined();
    }
    const before = auth.calls.length;
    const listed = await get(BASE, '/api/sites?via=key', { Authorization: `Bearer ${adminKey}`, 'Remote-User': 'admin' });
    expect(listed.status).toBe(200);
    expect(JSON.parse(listed.body).count).toBeGreaterThan(0);
    expect(tap.seen('/api/sites?via=key')[0]!.headers['remote-user']).toBeUndefined();
    expect(auth.calls.length).toBe(before);
    for (const call of auth.calls) expect(call.headers['remote-user']).toBeUndefined();
  });

  it('site hosts are never signed in and never carry an identity', async () => {
    const before = auth.calls.length;
    const res = await get(`demo.${BASE}`, '/?with-header', { 'Remote-User': 'admin', Cookie: SIGNED_IN });
    expect(res.status).toBe(200);
    const reached = tap.seen('/?with-header');
    expect(reached).toHaveLength(1);
    expect(reached[0]!.headers.host).toBe(`demo.${BASE}`);
    expect(reached[0]!.headers['remote-user']).toBeUndefined();
    expect(auth.calls.length).toBe(before);
  });

  it('nobody reaches the ask through Caddy: a relayed request is not the proxy asking', async () => {
    const relayed = await get(BASE, `/tls/ask?domain=${BASE}`, { Cookie: SIGNED_IN });
    expect(relayed.status).toBe(404);
    expect(JSON.parse(relayed.body)).toEqual({ error: 'no such endpoint', code: 'not_found' });
    expect(tap.seen(`/tls/ask?domain=${BASE}`).at(-1)!.headers['x-forwarded-for']).toBeTruthy();
  });

  it('plain HTTP redirects to HTTPS, for site hosts too', async () => {
    for (const name of [`demo.${BASE}`, BASE]) {
      const res = await new Promise<http.IncomingMessage>((done, fail) =>
        http.get({ host: '127.0.0.1', port: httpPort, path: '/x?y', headers: { Host: name } }, (r) => done(r.resume())).on('error', fail),
      );
      expect([301, 308], name).toContain(res.statusCode);
      // Caddy 2.6 names the HTTPS port only for the apex's own redirect; both go to HTTPS on the same name.
      expect(res.headers.location, name).toMatch(new RegExp(`^https://${name.replace(/\./g, '\\.')}(:${httpsPort})?/x\\?y$`));
    }
  });
});

describe.skipIf(!caddyAvailable())('deploy/Caddyfile as docker-compose.yml runs it', () => {
  /** `KEY: value` lines of the `environment:` block of one compose service, `${X:-default}` read as its default. */
  function serviceEnv(compose: string, service: string): Record<string, string> {
    const block = new RegExp(`^  ${service}:\\n((?:    .*\\n|\\s*\\n)+)`, 'm').exec(compose)?.[1] ?? '';
    const env = /^    environment:\n((?:      .*\n)+)/m.exec(block)?.[1] ?? '';
    const out: Record<string, string> = {};
    for (const m of env.matchAll(/^      ([A-Z_]+): (.*)$/gm)) out[m[1]!] = m[2]!.replace(/^"(.*)"$/, '$1').replace(/\$\{\w+:-([^}]*)\}/g, '$1');
    return out;
  }

  it("the proxy's environment makes a valid config that asks an instance, proxies to both, and is the one trusted proxy", async () => {
    const compose = await readFile(resolve(import.meta.dirname, '..', '..', 'docker-compose.yml'), 'utf8');
    expect(compose).toContain('./deploy/Caddyfile:/etc/caddy/Caddyfile:ro');
    const env = serviceEnv(compose, 'proxy');
    expect(Object.keys(env).sort()).toEqual(['SITES_ASK', 'SITES_AUTH', 'SITES_DOMAIN', 'SITES_UPSTREAMS']);
    const dir = await mkdtemp(join(tmpdir(), 'sites-caddy-compose-'));
    try {
      const run = (cmd: string) => exec(CADDY, [cmd, '--config', RECIPE, '--adapter', 'caddyfile'], { env: { PATH: process.env.PATH, HOME: dir, XDG_DATA_HOME: dir, XDG_CONFIG_HOME: dir, ...env } });
      expect((await run('validate')).stdout).toContain('Valid configuration');
      const adapted = JSON.stringify(JSON.parse((await run('adapt')).stdout));
      expect(adapted).toContain('"ask":"http://sites-1:8080/tls/ask"');
      for (const upstream of ['sites-1:8080', 'sites-2:8080', env.SITES_AUTH!]) expect(adapted).toContain(`"dial":"${upstream}"`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    // The service instances trust exactly the proxy's address.
    const proxyIp = /^  proxy:\n(?:    .*\n|\s*\n)*?\s+ipv4_address: ([\d.]+)/m.exec(compose)?.[1];
    expect(proxyIp).toBeTruthy();
    expect(compose).toMatch(new RegExp(`SITES_TRUSTED_PROXIES: "?${proxyIp!.replace(/\./g, '\\.')}"?\\n`));
  });
});

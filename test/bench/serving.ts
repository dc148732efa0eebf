/**
 * Serving benchmark: a 2 KB HTML file and a 1 MB asset from one published site, against
 * nginx and a plain Node static server serving the same files from a folder, and against
 * the floor of a Node server (bare http, bodies from memory). Every server gets the same
 * load from the same generator, in turn, over several rounds.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runLoad, type LoadOptions, type LoadResult } from '../support/load.ts';
import { makeTarGz } from '../support/archives.ts';
import { putPreview } from '../support/previews.ts';
import { publish } from '../support/publish.ts';
import { freePort, startService } from '../support/service.ts';
import { fmt, processCpu, prng } from './support.ts';
import type { Row } from './table.ts';

const NGINX = '/usr/sbin/nginx';

export type ServingParams = { readonly connections: number; readonly durationMs: number; readonly warmupMs: number; readonly rounds: number };

function smallHtml(): Buffer {
  let s = '<!doctype html><html><head><meta charset="utf-8"><title>bench</title></head><body>\n';
  for (let i = 0; s.length < 2048 - 20; i++) s += `<p>paragraph ${i}</p>\n`;
  return Buffer.from(`${s}</body></html>\n`.padEnd(2048, ' '));
}

function asset(): Buffer {
  const rand = prng(42);
  const b = Buffer.allocUnsafe(1024 * 1024);
  for (let i = 0; i < b.length; i += 4) b.writeUInt32LE((rand() * 4294967296) >>> 0, i);
  return b;
}

async function waitReady(child: ChildProcess, port: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`reference server exited with ${child.exitCode}`);
    try {
      await fetch(`http://127.0.0.1:${port}/index.html`);
      return;
    } catch {
      if (Date.now() > deadline) throw new Error('reference server did not start');
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((done) => {
    child.once('exit', () => done());
    child.kill('SIGTERM');
  });
}

async function startNginx(root: string, work: string): Promise<{ port: number; child: ChildProcess }> {
  const port = await freePort();
  const prefix = join(work, 'nginx');
  await mkdir(prefix, { recursive: true });
  const conf = join(prefix, 'nginx.conf');
  // One worker: the service is one Node process, so this compares one core with one core.
  await writeFile(
    conf,
    `worker_processes 1;
daemon off;
user root;
pid ${prefix}/nginx.pid;
error_log ${prefix}/error.log warn;
events { worker_connections 1024; }
http {
  include /etc/nginx/mime.types;
  default_type application/octet-stream;
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 1000000;
  client_body_temp_path ${prefix}/body;
  proxy_temp_path ${prefix}/proxy;
  fastcgi_temp_path ${prefix}/fastcgi;
  uwsgi_temp_path ${prefix}/uwsgi;
  scgi_temp_path ${prefix}/scgi;
  server { listen 127.0.0.1:${port}; root ${root}; }
}
`,
  );
  const child = spawn(NGINX, ['-c', conf, '-p', prefix], { stdio: 'ignore' });
  await waitReady(child, port);
  return { port, child };
}

/**
 * A load's result with the CPU time per request of the server (all its processes) and of
 * the load generator (this process), in µs: what the server costs whatever the machine's
 * speed at that moment, and whether the generator was the bound. Taken over the warm-up
 * too, at the measured rate.
 */
type Measured = LoadResult & { readonly serverUs: number; readonly clientUs: number };

async function measuredLoad(pids: readonly number[], o: LoadOptions): Promise<Measured> {
  const cpu = async () => (await Promise.all(pids.map((pid) => processCpu(pid)))).reduce((sum, c) => sum + c.total, 0);
  const server0 = await cpu();
  const client0 = process.cpuUsage();
  const result = await runLoad(o);
  const client = process.cpuUsage(client0);
  const served = (result.rps * ((o.durationMs + (o.warmupMs ?? 0)) / 1000)) || 1;
  return { ...result, serverUs: (((await cpu()) - server0) * 1000) / served, clientUs: (client.user + client.system) / served };
}

/** Two loads of the same file as one: their mean rate, the larger p99. */
const meanLoad = (a: Measured, b: Measured): Measured => ({
  ...a,
  requests: a.requests + b.requests,
  errors: a.errors + b.errors,
  rps: (a.rps + b.rps) / 2,
  p99Ms: Math.max(a.p99Ms, b.p99Ms),
  bytes: a.bytes + b.bytes,
  serverUs: (a.serverUs + b.serverUs) / 2,
  clientUs: (a.clientUs + b.clientUs) / 2,
  ...(a.firstError || b.firstError ? { firstError: a.firstError ?? b.firstError } : {}),
});

const describe = (r: Measured) =>
  `${Math.round(r.rps)} req/s, p99 ${fmt(r.p99Ms)} ms, CPU ${fmt(r.serverUs, 0)} µs/req (load generator ${fmt(r.clientUs, 0)})${r.errors ? `, ${r.errors} errors (${r.firstError})` : ''}`;

/** The processes of a server: itself and its children (nginx's worker). */
async function processTree(pid: number): Promise<number[]> {
  const children = (await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').catch(() => '')).trim().split(/\s+/).filter(Boolean).map(Number);
  return [pid, ...children];
}
const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

type Server = { readonly name: 'service' | 'nginx' | 'node' | 'floor'; readonly port: number; readonly pids: readonly number[]; readonly hostHeader?: string };

/**
 * This machine's speed drifts from one minute to the next (the same server answers 20,000
 * or 30,000 req/s), so the servers are not measured one after the other: each round loads
 * every server in turn on every file, and the figures are the medians over the rounds.
 */
export async function benchServing(p: ServingParams, log: (s: string) => void): Promise<Row[]> {
  const work = await mkdtemp(join(tmpdir(), 'sites-bench-serve-'));
  const root = join(work, 'site');
  await mkdir(root);
  const html = smallHtml();
  const big = asset();
  await writeFile(join(root, 'index.html'), html);
  await writeFile(join(root, 'asset.bin'), big);
  const files = [
    { name: 'small', path: '/index.html', bytes: html.length, label: '2 KB HTML' },
    { name: 'large', path: '/asset.bin', bytes: big.length, label: '1 MB asset' },
  ] as const;
  const durationMs = Math.max(2000, Math.round(p.durationMs / p.rounds));
  const servers: Server[] = [];
  const stops: (() => Promise<void>)[] = [];
  const results = new Map<string, Measured[]>(); // `${server}:${file}` → one result per round
  try {
    const svc = await startService();
    stops.push(() => svc.stop());
    const key = await svc.createKey(['--name', 'bench', '--admin']);
    const archive = await makeTarGz([
      { name: 'index.html', content: html },
      { name: 'asset.bin', content: big },
    ]);
    const res = await publish(svc.url, key, { group: 'bench', slug: 'serve', title: 'Serve' }, { archive });
    if (res.status !== 200) throw new Error(`publish for serving failed: ${res.status}`);
    servers.push({ name: 'service', port: svc.port, pids: [svc.pid], hostHeader: `serve.bench.localhost:${svc.port}` });
    // The same page reached through a rewrite: 999 rules that miss, then the single-page-app fallback.
    const rules = [...Array.from({ length: 999 }, (_, i) => `/section${i}/:page /new${i}/:page 301`), '/* /index.html 200'].join('\n');
    const spa = await makeTarGz([
      { name: 'index.html', content: html },
      { name: '_redirects', content: Buffer.from(rules) },
    ]);
    const spaRes = await publish(svc.url, key, { group: 'bench', slug: 'spa', title: 'SPA' }, { archive: spa });
    if (spaRes.status !== 200) throw new Error(`publish for serving failed: ${spaRes.status}`);
    const rewrite = { port: svc.port, hostHeader: `spa.bench.localhost:${svc.port}` };
    // The same page on a preview's host and on the live revision's permalink (spec §14).
    const previewRes = await putPreview(svc.url, key, 'bench/serve', 'pr-1', { files: { 'index.html': html.toString('utf8') } });
    if (previewRes.status !== 200) throw new Error(`preview for serving failed: ${previewRes.status}`);
    const variants = [
      { name: 'preview', hostHeader: `pr-1--serve.bench.localhost:${svc.port}` },
      { name: 'permalink', hostHeader: `v1--serve.bench.localhost:${svc.port}` },
    ] as const;

    if (existsSync(NGINX)) {
      const nginx = await startNginx(root, work);
      stops.push(() => stopChild(nginx.child));
      servers.push({ name: 'nginx', port: nginx.port, pids: await processTree(nginx.child.pid!) });
    }

    const port = await freePort();
    const node = spawn(process.execPath, [resolve(import.meta.dirname, 'static-server.mjs'), root, String(port)], { stdio: 'ignore' });
    stops.push(() => stopChild(node));
    await waitReady(node, port);
    servers.push({ name: 'node', port, pids: [node.pid!] });

    // What a Node server cannot beat: each file from memory with one end() and no headers of its own.
    const floorPort = await freePort();
    const floor = spawn(process.execPath, [resolve(import.meta.dirname, 'floor-server.mjs'), root, String(floorPort)], { stdio: 'ignore' });
    stops.push(() => stopChild(floor));
    await waitReady(floor, floorPort);
    servers.push({ name: 'floor', port: floorPort, pids: [floor.pid!] });

    for (let round = 1; round <= p.rounds; round++) {
      // Every other round in the opposite order: the machine's drift within a round then favours no server.
      const order = round % 2 === 1 ? servers : [...servers].reverse();
      log(`serving: round ${round} of ${p.rounds} (${order.map((x) => x.name).join(', ')}; ${durationMs / 1000} s each)`);
      for (const f of files) {
        for (const server of order) {
          const result = await measuredLoad(server.pids, {
            host: '127.0.0.1',
            port: server.port,
            path: f.path,
            connections: p.connections,
            durationMs,
            warmupMs: p.warmupMs,
            expectBytes: f.bytes,
            ...(server.hostHeader ? { hostHeader: server.hostHeader } : {}),
          });
          const key = `${server.name}:${f.name}`;
          results.set(key, [...(results.get(key) ?? []), result]);
        }
      }
      // Between two loads of the plain file (its figure is their mean), so a drift of the
      // machine while they run moves the reference as much as the rows compared with it.
      const plainLoad = () => measuredLoad([svc.pid], { host: '127.0.0.1', port: svc.port, hostHeader: `serve.bench.localhost:${svc.port}`, path: '/index.html', connections: p.connections, durationMs, warmupMs: p.warmupMs, expectBytes: html.length });
      const before = await plainLoad();
      const rewritten = await measuredLoad([svc.pid], { host: '127.0.0.1', ...rewrite, path: '/app/users/42/settings', connections: p.connections, durationMs, warmupMs: p.warmupMs, expectBytes: html.length });
      results.set('service:rewrite', [...(results.get('service:rewrite') ?? []), rewritten]);
      for (const v of variants) {
        const on = await measuredLoad([svc.pid], { host: '127.0.0.1', port: svc.port, hostHeader: v.hostHeader, path: '/index.html', connections: p.connections, durationMs, warmupMs: p.warmupMs, expectBytes: html.length });
        results.set(`service:${v.name}`, [...(results.get(`service:${v.name}`) ?? []), on]);
      }
      const after = await plainLoad();
      results.set('service:plain-again', [...(results.get('service:plain-again') ?? []), meanLoad(before, after)]);
    }
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    await rm(work, { recursive: true, force: true });
  }

  // The median round of a server (by req/s) stands for it; ratios are taken round by round.
  const typical = (runs: readonly Measured[]) => [...runs].sort((a, b) => a.rps - b.rps)[Math.floor(runs.length / 2)]!;
  const rows: Row[] = [];
  for (const f of files) {
    const service = results.get(`service:${f.name}`)!;
    for (const ref of ['nginx', 'node', 'floor'] as const) {
      const refName = { nginx: 'nginx (1 worker)', node: 'Node http + createReadStream', floor: 'bare Node http, end(bytes in memory)' }[ref];
      const other = results.get(`${ref}:${f.name}`);
      if (!other) {
        rows.push({ section: 'Serving', what: `${f.label} vs ${refName}`, value: describe(typical(service)), reference: 'nginx not installed' });
        continue;
      }
      const ratios = service.map((r, i) => r.rps / other[i]!.rps);
      const ratio = median(ratios);
      rows.push({
        section: 'Serving',
        what: `${f.label}, ${p.connections} conns vs ${refName} (median of ${p.rounds} rounds, ratios ${fmt(Math.min(...ratios), 2)}–${fmt(Math.max(...ratios), 2)})`,
        value: describe(typical(service)),
        reference: describe(typical(other)),
        ratio,
        ...(ref === 'nginx' && f.name === 'small' ? { target: '≥ 1.0× nginx', ok: ratio >= 1 } : {}),
      });
    }
  }
  // Whether any Node server could meet the nginx target on this machine: the floor against nginx.
  const floorSmall = results.get('floor:small');
  const nginxSmall = results.get('nginx:small');
  if (floorSmall && nginxSmall) {
    const ratios = floorSmall.map((r, i) => r.rps / nginxSmall[i]!.rps);
    rows.push({
      section: 'Serving',
      what: `2 KB HTML: the bare Node floor vs nginx (1 worker), no service involved (median of ${p.rounds} rounds, ratios ${fmt(Math.min(...ratios), 2)}–${fmt(Math.max(...ratios), 2)})`,
      value: describe(typical(floorSmall)),
      reference: describe(typical(nginxSmall)),
      ratio: median(ratios),
    });
  }
  const rewrite = results.get('service:rewrite');
  const plain = results.get('service:plain-again');
  if (rewrite && plain) {
    const ratios = rewrite.map((r, i) => r.rps / plain[i]!.rps);
    const ratio = median(ratios);
    rows.push({
      section: 'Serving',
      what: `2 KB HTML through a rewrite after 1,000 _redirects rules vs the plain file (median of ${p.rounds} rounds, ratios ${fmt(Math.min(...ratios), 2)}–${fmt(Math.max(...ratios), 2)})`,
      value: describe(typical(rewrite)),
      reference: describe(typical(plain)),
      ratio,
      target: '≥ 0.8×',
      ok: ratio >= 0.8,
    });
  }
  // A preview's or permalink's page against the live page, each round back to back with the plain file (spec §14: within 0.9×).
  for (const [name, label] of [
    ['preview', 'a preview host (pr-1--serve.bench)'],
    ['permalink', 'a permalink host (v1--serve.bench)'],
  ] as const) {
    const variant = results.get(`service:${name}`);
    if (!variant || !plain) continue;
    const ratios = variant.map((r, i) => r.rps / plain[i]!.rps);
    const ratio = median(ratios);
    rows.push({
      section: 'Serving',
      what: `2 KB HTML on ${label} vs the live host (median of ${p.rounds} rounds, ratios ${fmt(Math.min(...ratios), 2)}–${fmt(Math.max(...ratios), 2)})`,
      value: describe(typical(variant)),
      reference: describe(typical(plain)),
      ratio,
      target: '≥ 0.9×',
      ok: ratio >= 0.9,
    });
  }
  return rows;
}

/**
 * Start-up benchmark: `npm start` (bin/sites.mjs serve with the same Node flags) with the
 * compiled build already in `.build/` (bin/build-server.mjs), timed from the spawn to the
 * first byte of a response: /healthz on a fresh data dir, and a published site's page on a
 * data dir that holds one (a restart). The reference is a bare Node http server spawned
 * and polled the same way: what any Node service pays before its own code runs.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { makeTarGz } from '../support/archives.ts';
import { publish } from '../support/publish.ts';
import { freePort, SERVE_NODE_FLAGS, startService } from '../support/service.ts';
import { fmt } from './support.ts';
import type { Row } from './table.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'sites.mjs');
const run = promisify(execFile);

export type StartupParams = { readonly runs: number };

/** Resolves with the ms from `t0` to the first byte of a GET, retrying while nothing listens. */
async function firstByte(port: number, path: string, host: string, t0: number, child: ChildProcess): Promise<{ ms: number; status: number }> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the process exited (${child.exitCode}) before answering`);
    const answer = await new Promise<{ ms: number; status: number } | undefined>((done) => {
      const req = request({ host: '127.0.0.1', port, path, headers: { Host: host }, agent: false }, (res) => {
        const ms = performance.now() - t0;
        res.resume();
        done({ ms, status: res.statusCode ?? 0 });
      });
      req.on('error', () => done(undefined));
      req.end();
    });
    if (answer) return answer;
    if (Date.now() > deadline) throw new Error('no answer within 30 s');
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((done) => {
    child.once('exit', () => done());
    child.kill('SIGTERM');
  });
}

function serviceEnv(port: number, dataDir: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    SITES_LISTEN_ADDR: `127.0.0.1:${port}`,
    SITES_BASE_DOMAIN: 'localhost',
    SITES_DATA_DIR: dataDir,
    SITES_LOG_LEVEL: 'warn',
  };
}

/** One timed start of `sites serve`; stops it again. */
export async function timedStart(dataDir: string, path: string, host: (port: number) => string): Promise<number> {
  const port = await freePort();
  const t0 = performance.now();
  const child = spawn(process.execPath, [...SERVE_NODE_FLAGS, BIN, 'serve'], { env: serviceEnv(port, dataDir), stdio: 'ignore', cwd: ROOT });
  try {
    const { ms, status } = await firstByte(port, path, host(port), t0, child);
    if (status !== 200) throw new Error(`GET ${path} answered ${status}`);
    return ms;
  } finally {
    await stop(child);
  }
}

async function timedBareNode(): Promise<number> {
  const port = await freePort();
  const t0 = performance.now();
  const code = `require('node:http').createServer((q, s) => s.end('ok')).listen(${port}, '127.0.0.1')`;
  const child = spawn(process.execPath, [...SERVE_NODE_FLAGS, '-e', code], { stdio: 'ignore' });
  try {
    return (await firstByte(port, '/', '127.0.0.1', t0, child)).ms;
  } finally {
    await stop(child);
  }
}

export async function benchStartup(p: StartupParams, log: (s: string) => void): Promise<Row[]> {
  const work = await mkdtemp(join(tmpdir(), 'sites-bench-startup-'));
  try {
    log('startup: building .build/ ahead (node bin/build-server.mjs)');
    await run(process.execPath, [join(ROOT, 'bin', 'build-server.mjs')], { cwd: ROOT });

    // A data dir holding one published site, for the restart row.
    const withSite = join(work, 'with-site');
    const svc = await startService({ dataDir: withSite });
    try {
      const key = await svc.createKey(['--name', 'bench', '--admin']);
      const archive = await makeTarGz([{ name: 'index.html', content: Buffer.from('<!doctype html><h1>up</h1>\n') }]);
      const res = await publish(svc.url, key, { group: 'bench', slug: 'up', title: 'Up' }, { archive });
      if (res.status !== 200) throw new Error(`publish for start-up failed: ${res.status}`);
    } finally {
      await svc.halt();
    }

    const fresh: number[] = [];
    const restart: number[] = [];
    const bare: number[] = [];
    const runs = Math.max(3, p.runs);
    for (let i = 0; i < runs; i++) {
      log(`startup: run ${i + 1} of ${runs}`);
      bare.push(await timedBareNode());
      fresh.push(await timedStart(join(work, `fresh-${i}`), '/healthz', (port) => `localhost:${port}`));
      restart.push(await timedStart(withSite, '/', (port) => `up.bench.localhost:${port}`));
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const range = (xs: number[]) => `${fmt(Math.min(...xs) / 1000, 2)}–${fmt(Math.max(...xs) / 1000, 2)} s`;
    const reference = `bare Node http server: ${fmt(median(bare) / 1000, 2)} s (${range(bare)})`;
    return [
      {
        section: 'Start-up',
        what: `npm start (built .build/) to the first byte of GET /healthz, fresh data dir (median of ${runs}, runs ${range(fresh)})`,
        value: `${fmt(median(fresh) / 1000, 2)} s`,
        reference,
        ratio: median(fresh) / median(bare),
        target: '< 1.5 s',
        ok: median(fresh) < 1500,
      },
      {
        section: 'Start-up',
        what: `the same to the first byte of a published site's page, data dir with one site (median of ${runs}, runs ${range(restart)})`,
        value: `${fmt(median(restart) / 1000, 2)} s`,
        reference,
        ratio: median(restart) / median(bare),
        target: '< 1.5 s',
        ok: median(restart) < 1500,
      },
    ];
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

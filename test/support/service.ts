import { spawn, type ChildProcess } from 'node:child_process';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const ROOT = resolve(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'sites.mjs');
const run = promisify(execFile);
/** The Node flags `npm start`, the bin's shebang and the Dockerfile run the service with. */
export const SERVE_NODE_FLAGS = ['--max-semi-space-size=1', '--expose-gc'];

export type RunningService = {
  /** Apex origin, e.g. http://localhost:PORT */
  readonly url: string;
  readonly port: number;
  readonly dataDir: string;
  readonly baseDomain: string;
  readonly env: Record<string, string>;
  /** The running process's id (changes with `restart()`). */
  readonly pid: number;
  /** `http://<labels>.localhost:PORT/` for a site path like `docs/app`. */
  siteUrl(path: string): string;
  /** Runs `sites keys create …` and returns the token (the last stdout line). */
  createKey(args: string[]): Promise<string>;
  /** Runs the CLI with this service's environment. */
  cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }>;
  stop(): Promise<void>;
  /** Stops the process (SIGTERM) but keeps the data dir; `restart()` starts it again. */
  halt(): Promise<void>;
  /** SIGKILL, for crash tests. */
  kill(): Promise<void>;
  restart(): Promise<void>;
  /** Everything the process wrote, across restarts: stderr, then stdout (each in order). */
  output(): string;
};

export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      srv.close(() => (address && typeof address === 'object' ? resolvePort(address.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * Starts the real service process (`sites serve`, what `npm start` runs) on the embedded
 * stack in a temporary data dir, and waits until it answers.
 */
export async function startService(opts: { env?: Record<string, string>; dataDir?: string } = {}): Promise<RunningService> {
  let port = await freePort();
  const dataDir = opts.dataDir ?? (await mkdtemp(join(tmpdir(), 'sites-test-')));
  const env: Record<string, string> = {
    SITES_LISTEN_ADDR: `127.0.0.1:${port}`,
    SITES_BASE_DOMAIN: 'localhost',
    SITES_DATA_DIR: dataDir,
    SITES_ADMIN_USERS: 'admin',
    SITES_TRUSTED_PROXIES: '127.0.0.1,::1',
    SITES_VERSIONING_ENABLED: 'true',
    SITES_VERSIONING_KEEP: '5',
    SITES_LOG_LEVEL: 'warn',
    // The publishing client's digest cache (client/digest-cache.ts) stays with the test's data.
    SITES_CACHE_DIR: join(dataDir, 'client-cache'),
    ...opts.env,
  };
  const fullEnv = { ...process.env, ...env };
  let child: ChildProcess | undefined;
  let stderr = '';
  let allErr = '';
  let allOut = '';

  const launch = async () => {
    stderr = '';
    // SITES_TEST_NODE_FLAGS: extra flags for the service process, e.g. `--cpu-prof --cpu-prof-dir=DIR` to profile a benchmark.
    const extra = process.env.SITES_TEST_NODE_FLAGS?.split(' ').filter(Boolean) ?? [];
    child = spawn(process.execPath, [...SERVE_NODE_FLAGS, ...extra, BIN, 'serve'], { env: fullEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stderr!.on('data', (c: Buffer) => {
      stderr += c.toString();
      allErr += c.toString();
      if (process.env.SITES_TEST_VERBOSE) process.stderr.write(c);
    });
    child.stdout!.on('data', (c: Buffer) => (allOut += c.toString()));
    const deadline = Date.now() + 20_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`service exited (${child.exitCode}): ${stderr}`);
      try {
        const res = await fetch(`http://localhost:${port}/healthz`);
        if (res.ok) return;
      } catch {
        /* not up yet */
      }
      if (Date.now() > deadline) throw new Error(`service did not start: ${stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    const c = child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    await new Promise<void>((done) => {
      c.once('exit', () => done());
      c.kill(signal);
    });
  };
  const cli = async (args: string[]) => {
    try {
      const { stdout, stderr: err } = await run(process.execPath, [BIN, ...args], { env: fullEnv, cwd: ROOT });
      return { code: 0, stdout, stderr: err };
    } catch (e) {
      const x = e as { code?: number; stdout?: string; stderr?: string };
      return { code: typeof x.code === 'number' ? x.code : 1, stdout: x.stdout ?? '', stderr: x.stderr ?? '' };
    }
  };

  for (let attempt = 1; ; attempt++) {
    try {
      await launch();
      break;
    } catch (err) {
      // The free port can be taken by another process (other test files run at once) before the
      // service binds it: take another one.
      const ours = env.SITES_LISTEN_ADDR === `127.0.0.1:${port}`;
      if (attempt === 3 || !ours || !stderr.includes('the port is in use')) throw err;
      port = await freePort();
      env.SITES_LISTEN_ADDR = fullEnv.SITES_LISTEN_ADDR = `127.0.0.1:${port}`;
    }
  }
  return {
    url: `http://localhost:${port}`,
    port,
    dataDir,
    baseDomain: 'localhost',
    env,
    get pid() {
      return child!.pid!;
    },
    siteUrl: (path: string) => `http://${path.split('/').reverse().join('.')}.localhost:${port}/`,
    async createKey(args: string[]) {
      const r = await cli(['keys', 'create', ...args]);
      if (r.code !== 0) throw new Error(`keys create failed: ${r.stderr}`);
      return r.stdout.trim().split('\n').pop()!;
    },
    cli,
    async stop() {
      await stop();
      if (!opts.dataDir) await rm(dataDir, { recursive: true, force: true });
    },
    async halt() {
      await stop();
    },
    async kill() {
      await stop('SIGKILL');
    },
    async restart() {
      await stop();
      await launch();
    },
    output: () => `${allErr}\n${allOut}`,
  };
}

/**
 * Issue 30: stopping the service the way a script does, `npm start & … kill $!`, must stop
 * it. The start script used to be `a && b` under /bin/sh, which (dash) does not pass the
 * signal on: npm and the shell died and `node bin/sites.mjs serve` stayed on the port. The
 * script now `exec`s the service after the portal check, so npm's child is the service and
 * the SIGTERM npm passes on reaches it.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/service.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');
let work: string;
/** The shell running the script: its process group holds everything `npm start` started. */
let group: number | undefined;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'sites-npm-start-'));
});
afterAll(async () => {
  // Whatever the script left behind (the old start script left the service running).
  if (group) {
    try {
      process.kill(-group, 'SIGKILL');
    } catch {
      // nothing left
    }
  }
  if (work) await rm(work, { recursive: true, force: true });
});

const answers = (port: number) =>
  new Promise<boolean>((done) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      done(true);
    });
    socket.once('error', () => done(false));
  });

const canListen = (port: number) =>
  new Promise<boolean>((done) => {
    const server = createServer();
    server.once('error', () => done(false));
    server.listen(port, '127.0.0.1', () => server.close(() => done(true)));
  });

describe('npm start', () => {
  it('`npm start & … kill $!` stops the service: the port is free again', async () => {
    const port = await freePort();
    const script = join(work, 'start-and-stop.sh');
    // As a deploy or test script does it: start in the background, wait until it answers, stop it.
    await writeFile(
      script,
      `npm start >"${join(work, 'start.log')}" 2>&1 &
pid=$!
for i in $(seq 1 300); do
  if curl -sf "http://127.0.0.1:${port}/healthz" >/dev/null; then up=1; break; fi
  sleep 0.1
done
[ -n "\${up:-}" ] || { echo "never answered"; cat "${join(work, 'start.log')}"; exit 1; }
echo "children: $(ps -o args= --ppid $pid | tr '\\n' '|')"
kill $pid
wait $pid
echo "npm exited: $?"
`,
    );
    const env = { ...process.env, SITES_LISTEN_ADDR: `127.0.0.1:${port}`, SITES_DATA_DIR: join(work, 'data'), SITES_LOG_LEVEL: 'warn' };
    const shell = spawn('bash', ['--noprofile', '--norc', script], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    group = shell.pid;
    let out = '';
    shell.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    shell.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    const code = await new Promise<number | null>((done) => shell.once('exit', (c) => done(c)));
    expect(code, out).toBe(0);
    // npm's one child is the service itself (no shell in between to swallow the signal), with the Node flags.
    expect(out).toContain('children: node --max-semi-space-size=1 --expose-gc bin/sites.mjs serve|\n');
    // npm has exited; the service must be gone too, within its shutdown time.
    const deadline = Date.now() + 10_000;
    while ((await answers(port)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(await answers(port), 'something still answers on the port after npm was killed').toBe(false);
    expect(await canListen(port)).toBe(true);
  });
});

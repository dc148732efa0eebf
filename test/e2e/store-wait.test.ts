/**
 * Cold start (issue 32 item 1): `sites serve` waits for its store servers with a log line
 * each, for at most SITES_STORE_WAIT, then stops with one line naming the store; one that
 * comes up within the wait is used. Run for real: the real clients (EventStoreDB, MongoDB,
 * minio) against a loopback port nothing listens on, and an S3 server (s3rver) that starts
 * on its port only after the service did.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startFaultProxy, type FaultProxy } from '../support/s3/fault-proxy.ts';
import { startS3Server, type LocalS3 } from '../support/s3-server.ts';
import { freePort, SERVE_NODE_FLAGS } from '../support/service.ts';

const BIN = resolve(import.meta.dirname, '..', '..', 'bin', 'sites.mjs');

type Served = { child: ChildProcess; port: number; stderr: () => string; exited: Promise<number> };
type Undo = () => Promise<unknown>;
const undoAll = async (list: Undo[]) => {
  for (const undo of list.splice(0).reverse()) await undo().catch(() => undefined);
};
const cleanup: Undo[] = [];
afterEach(() => undoAll(cleanup));

/** `undo`: where the process and its data dir are cleaned up from (a concurrent test has its own). */
async function serve(env: Record<string, string>, undo = cleanup): Promise<Served> {
  const port = await freePort();
  const dataDir = await mkdtemp(join(tmpdir(), 'sites-store-wait-'));
  undo.push(() => rm(dataDir, { recursive: true, force: true }));
  let stderr = '';
  const child = spawn(process.execPath, [...SERVE_NODE_FLAGS, BIN, 'serve'], {
    env: { ...process.env, SITES_LISTEN_ADDR: `127.0.0.1:${port}`, SITES_DATA_DIR: dataDir, SITES_LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number>((done) => child.once('exit', (code) => done(code ?? -1)));
  undo.push(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  });
  return { child, port, stderr: () => stderr, exited };
}

const lines = (text: string) => text.trim().split('\n');

describe('start-up waits for its stores', () => {
  // Each case mostly waits out its 3 s: the three run at once.
  it.concurrent.for<[string, (port: number) => Record<string, string>, string]>([
    ['the event store', (port: number) => ({ SITES_EVENTSTORE_URL: `esdb://127.0.0.1:${port}?tls=false` }), 'EventStoreDB'],
    ['the read model', (port: number) => ({ SITES_MONGO_URL: `mongodb://127.0.0.1:${port}/sites` }), 'MongoDB'],
    [
      'the file store',
      (port: number) => ({ SITES_S3_ENDPOINT: `http://127.0.0.1:${port}`, SITES_S3_BUCKET: 'sites', SITES_S3_ACCESS_KEY: 'k', SITES_S3_SECRET_KEY: 'secret-key' }),
      'S3',
    ],
  ])('stops with one line naming %s when nothing listens on its port', { timeout: 30_000 }, async ([name, envFor, kind], { onTestFinished }) => {
    const mine: Undo[] = [];
    onTestFinished(() => undoAll(mine));
    const port = await freePort(); // free, and nothing will listen on it
    const started = Date.now();
    const svc = await serve({ ...envFor(port), SITES_STORE_WAIT: '3s' }, mine);
    expect(await svc.exited).toBe(1);
    const took = Date.now() - started;
    const out = lines(svc.stderr());
    // While it waited: a line saying what it waits for.
    expect(out.some((l) => l.includes(`waiting for ${name}: ${kind} at `) && l.includes(`127.0.0.1:${port}`))).toBe(true);
    // Then one line, naming the store and its address, and no stack trace.
    expect(out.at(-1)).toMatch(new RegExp(`^sites: ${name} \\(${kind} at [^)]*127\\.0\\.0\\.1:${port}[^)]*\\) did not answer within 3 s: `));
    expect(svc.stderr()).not.toMatch(/^\s+at /m);
    expect(took).toBeGreaterThanOrEqual(3_000);
    expect(took).toBeLessThan(15_000);
  });

  it('stops at once, naming the store, when it refuses the credentials', async () => {
    const s3 = await startS3Server();
    cleanup.push(() => s3.stop());
    const svc = await serve({ SITES_S3_ENDPOINT: s3.endpoint, SITES_S3_BUCKET: s3.bucket, SITES_S3_ACCESS_KEY: s3.accessKey, SITES_S3_SECRET_KEY: 'not-the-secret', SITES_STORE_WAIT: '60s' });
    const started = Date.now();
    expect(await svc.exited).toBe(1);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(lines(svc.stderr()).at(-1)).toMatch(/^sites: the file store \(S3 at http:\/\/127\.0\.0\.1:\d+, bucket [^)]+\) refused the service: /);
  }, 30_000);

  it('waits for a store that starts late, then serves', async () => {
    const port = await freePort();
    const s3: LocalS3 = await startS3Server(); // its own port; the service is told `port`, where nothing listens yet
    cleanup.push(() => s3.stop());
    const svc = await serve({ SITES_S3_ENDPOINT: `http://127.0.0.1:${port}`, SITES_S3_BUCKET: s3.bucket, SITES_S3_ACCESS_KEY: s3.accessKey, SITES_S3_SECRET_KEY: s3.secretKey, SITES_STORE_WAIT: '30s' });
    const until = async (what: () => boolean | Promise<boolean>, ms: number) => {
      const deadline = Date.now() + ms;
      while (!(await what())) {
        if (svc.child.exitCode !== null) throw new Error(`service exited: ${svc.stderr()}`);
        if (Date.now() > deadline) throw new Error(`timed out: ${svc.stderr()}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    await until(() => svc.stderr().includes('waiting for the file store'), 15_000);
    await new Promise((r) => setTimeout(r, 1_500)); // a few more refused tries
    const proxy: FaultProxy = await startFaultProxy(s3.endpoint, port); // the server "comes up" on the port
    cleanup.push(() => proxy.stop());
    const healthy = async () => (await fetch(`http://127.0.0.1:${svc.port}/healthz`).catch(() => undefined))?.status === 200;
    await until(healthy, 25_000);
    expect(svc.stderr()).toMatch(/the file store is ready after \d+\.\d s: S3 at http:\/\/127\.0\.0\.1:\d+, bucket /);
    expect(proxy.requests.some((r) => r.path === `/${s3.bucket}`)).toBe(true); // the bucket was looked for (and made) through it
  }, 60_000);
});

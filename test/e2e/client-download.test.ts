/**
 * Publishing from a CI runner with nothing but Node (issue: the service hands out its own
 * client): in an empty folder without node_modules, download the client from a running
 * service, publish a folder with plain `node`, change one file and publish again (only that
 * file is uploaded), and the failure modes are one line each.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildClient, servedClient } from '../../host/client-bundle.ts';
import { freePort, startService, type RunningService } from '../support/service.ts';

const run = promisify(execFile);
let svc: RunningService;
let key: string;
let work: string;
let client: string;

/** Runs the downloaded client with plain node and a bare environment, as a CI step would. */
async function node(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [client, ...args], { cwd: work, env: { PATH: process.env.PATH ?? '', ...env } });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const x = e as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof x.code === 'number' ? x.code : -1, stdout: x.stdout ?? '', stderr: x.stderr ?? '' };
  }
}

beforeAll(async () => {
  svc = await startService();
  key = await svc.createKey(['--name', 'ci', '--grant', 'docs:publish']);
  work = await mkdtemp(join(tmpdir(), 'sites-ci-'));
  client = join(work, 'sites.mjs');
  await mkdir(join(work, 'dist', 'css'), { recursive: true });
  await writeFile(join(work, 'dist', 'index.html'), '<h1>Docs v1</h1>');
  await writeFile(join(work, 'dist', 'css', 'site.css'), 'body { color: navy }');
  await writeFile(join(work, 'dist', 'big.bin'), Buffer.alloc(200_000, 7));
});
afterAll(async () => {
  await svc?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

describe('the client the service hands out', () => {
  it('is served without sign-in, names its version on the first line, with an ETag, and equals a fresh build', async () => {
    const res = await fetch(`${svc.url}/cli/sites.mjs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(res.headers.get('cache-control')).toMatch(/max-age/);
    const etag = res.headers.get('etag')!;
    const text = await res.text();
    expect(text.split('\n')[0]).toMatch(/^\/\/ sites publishing client \d+\.\d+\.\d+\+[0-9a-f]{8} /);
    expect(text).toBe(servedClient(await buildClient(), svc.url));
    expect((await fetch(`${svc.url}/cli/sites.mjs`, { headers: { 'If-None-Match': etag } })).status).toBe(304);
    await writeFile(client, text);
  });

  it('publishes a folder with plain node, the URL defaulting to where it came from', async () => {
    const r = await node(['publish', 'dist', '--site', 'docs/app', '--title', 'Docs'], { SITES_KEY: key });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^published 3 files \\(3 new, 200 KB uploaded\\) to ${svc.siteUrl('docs/app').replace(/[.]/g, '\\.')} \\(revision \\d{8}T\\d{6}\\.\\d{9}Z\\)\\n$`));
    expect(await (await fetch(svc.siteUrl('docs/app'))).text()).toBe('<h1>Docs v1</h1>');
  });

  it('uploads only the file that changed on the next publish', async () => {
    await writeFile(join(work, 'dist', 'index.html'), '<h1>Docs v2</h1>');
    const r = await node(['publish', 'dist', '--site', 'docs/app'], { SITES_KEY: key, SITES_URL: svc.url });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^published 3 files \(1 new, 16 B uploaded\)/);
    expect(await (await fetch(svc.siteUrl('docs/app'))).text()).toBe('<h1>Docs v2</h1>');
  });

  it('fails in one line: a bad key, a missing grant, the server down, bad usage', async () => {
    const bad = await node(['publish', 'dist', '--site', 'docs/app'], { SITES_KEY: 'key_nope' });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^sites: publish failed \(401\): .+\n$/);
    const other = await node(['publish', 'dist', '--site', 'other/app'], { SITES_KEY: key });
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(/^sites: publish failed \(403\): .+\n$/);
    const down = await node(['publish', 'dist', '--site', 'docs/app', '--url', `http://127.0.0.1:${await freePort()}`], { SITES_KEY: key });
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/^sites: cannot reach http:\/\/127\.0\.0\.1:\d+ \(connection refused\) — is the service running\?\n$/);
    const usage = await node(['publish', 'dist'], { SITES_KEY: key });
    expect(usage.code).toBe(2);
    expect(usage.stderr.trim().split('\n')).toHaveLength(1);
  });
});

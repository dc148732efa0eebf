import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../support/http.ts';
import { startService, type RunningService } from '../support/service.ts';

const exec = promisify(execFile);
let svc: RunningService;
let work: string;

beforeAll(async () => {
  svc = await startService({ env: { SITES_DELETED_SITE_TTL: '2s' } });
  work = await mkdtemp(join(tmpdir(), 'sites-e2e-'));
});
afterAll(async () => {
  await svc?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

async function listing(key: string) {
  return (await call(svc.url, 'GET', '/api/sites?limit=500', { key })).body;
}

describe('the real service through the CLI and curl', () => {
  it('creates a key with the CLI, publishes a .tar.gz with curl, serves it, and survives a restart', async () => {
    const key = await svc.createKey(['--name', 'ci', '--grant', 'docs:publish,unpublish,purge']);
    expect(key).toMatch(/^key_/);
    const site = join(work, 'public');
    await mkdir(join(site, 'assets'), { recursive: true });
    await writeFile(join(site, 'index.html'), '<h1>from curl</h1>');
    await writeFile(join(site, 'assets', 'app.js'), 'console.log(1)');
    await exec('tar', ['czf', join(work, 'site.tgz'), '-C', work, 'public']);
    const { stdout } = await exec('curl', [
      '-sS', '-H', `Authorization: Bearer ${key}`,
      '-F', 'meta={"group":"docs","slug":"app","title":"App"}',
      '-F', `bundle=@${join(work, 'site.tgz')}`,
      `${svc.url}/ingest/sites`,
    ]);
    expect(JSON.parse(stdout)).toMatchObject({ url: svc.siteUrl('docs/app'), group: 'docs', slug: 'app' });
    const page = await exec('curl', ['-sS', svc.siteUrl('docs/app')]);
    expect(page.stdout).toBe('<h1>from curl</h1>');
    const before = await listing(key);
    expect(before.count).toBe(1);

    await svc.restart();
    expect((await exec('curl', ['-sS', `${svc.siteUrl('docs/app')}assets/app.js`])).stdout).toBe('console.log(1)');
    expect(await listing(key)).toEqual(before);
  });

  it('`sites publish` hashes a folder and publishes it', async () => {
    const key = await svc.createKey(['--name', 'cli', '--admin']);
    const dir = join(work, 'docs-site');
    await mkdir(join(dir, 'guide'), { recursive: true });
    await writeFile(join(dir, 'index.html'), '<h1>cli</h1>');
    await writeFile(join(dir, 'guide', 'index.html'), '<h1>guide</h1>');
    const r = await svc.cli(['publish', dir, '--site', 'docs/guide', '--title', 'Guide', '--key', key, '--url', svc.url]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(svc.siteUrl('docs/guide'));
    expect(await (await fetch(`${svc.siteUrl('docs/guide')}guide/`)).text()).toBe('<h1>guide</h1>');
    expect((await svc.cli(['publish', dir, '--key', key])).code).toBe(2);
    expect((await svc.cli(['publish', dir, '--site', 'docs/guide', '--key', 'key_wrong', '--url', svc.url])).code).toBe(1);
  });

  it('`sites publish` again after one file changed uploads that one file (spec §10)', async () => {
    const key = await svc.createKey(['--name', 'incremental', '--grant', 'docs:publish']);
    const dir = join(work, 'incremental');
    await mkdir(join(dir, 'assets'), { recursive: true });
    await writeFile(join(dir, 'index.html'), '<h1>v1</h1>');
    for (let i = 0; i < 20; i++) await writeFile(join(dir, 'assets', `f${i}.css`), `.f${String(i).padStart(2, '0')}{}`);
    const publishDir = () => svc.cli(['publish', dir, '--site', 'docs/incremental', '--title', 'Inc', '--key', key, '--url', svc.url]);
    const first = await publishDir();
    expect(first.stderr).toBe('');
    expect(first.stdout).toMatch(new RegExp(`^published 21 files \\(21 new, 131 B uploaded\\) to ${svc.siteUrl('docs/incremental').replace(/\./g, '\\.')} \\(revision \\d{8}T\\d{6}\\.\\d{9}Z\\)\n$`));

    await writeFile(join(dir, 'assets', 'f7.css'), '.f7{color:red}');
    const second = await publishDir();
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toMatch(/^published 21 files \(1 new, 14 B uploaded\) to /);
    expect(await (await fetch(`${svc.siteUrl('docs/incremental')}assets/f7.css`)).text()).toBe('.f7{color:red}');
    expect(await (await fetch(`${svc.siteUrl('docs/incremental')}assets/f8.css`)).text()).toBe('.f08{}');

    // Nothing changed: nothing is sent, and nothing is recorded (spec §4: no new revision).
    const third = await publishDir();
    expect(third.stdout).toMatch(/^published 21 files \(0 new, 0 B uploaded\) to /);
    const admin = await svc.createKey(['--name', 'incremental-admin', '--admin']);
    expect((await call(svc.url, 'GET', '/api/sites/docs/incremental/revisions', { key: admin })).body.revisions).toHaveLength(2);
  });

  it('`sites replay` rebuilds the same read model after a long mixed history', async () => {
    const key = await svc.createKey(['--name', 'mix', '--admin']);
    const form = (slug: string, body: string) => {
      const f = new FormData();
      f.append('meta', JSON.stringify({ group: 'mix', slug, title: slug, tags: [slug.slice(0, 1)] }));
      f.append('index', new Blob([body]), 'index.html');
      return fetch(`${svc.url}/ingest/sites`, { method: 'POST', headers: { Authorization: `Bearer ${key}` }, body: f });
    };
    for (let i = 0; i < 6; i++) await form(`s${i}`, `<p>${i}</p>`);
    await form('s1', 'again');
    await call(svc.url, 'PATCH', '/ingest/sites/mix/s2', { key, body: { hidden: true, description: 'd' } });
    await call(svc.url, 'DELETE', '/ingest/sites/mix/s3', { key });
    await call(svc.url, 'DELETE', '/ingest/sites/mix/s4', { key });
    await call(svc.url, 'POST', '/ingest/sites/mix/s4/purge', { key });
    await call(svc.url, 'POST', '/ingest/sites/mix/s1/rollback', { key });
    await call(svc.url, 'DELETE', '/ingest/sites/mix/s5', { key });
    await call(svc.url, 'POST', '/ingest/sites/mix/s5/restore', { key });
    const snapshot = async () => JSON.stringify([
      (await call(svc.url, 'GET', '/api/sites?hidden=true&limit=500', { user: 'admin' })).body,
      (await call(svc.url, 'GET', '/api/keys', { user: 'admin' })).body,
      (await call(svc.url, 'GET', '/api/sites/mix/s1/revisions', { user: 'admin' })).body,
    ]);
    const before = await snapshot();
    await svc.halt();
    const replay = await svc.cli(['replay']);
    expect(replay.code).toBe(0);
    expect(replay.stdout).toMatch(/replayed \d+ events/);
    await svc.restart();
    expect(await snapshot()).toBe(before);
  });

  it('purges quarantined sites after the TTL, as the system', async () => {
    const key = await svc.createKey(['--name', 'ttl', '--admin']);
    const f = new FormData();
    f.append('meta', JSON.stringify({ slug: 'short-lived', title: 'T' }));
    f.append('index', new Blob(['bye']), 'index.html');
    await fetch(`${svc.url}/ingest/sites`, { method: 'POST', headers: { Authorization: `Bearer ${key}` }, body: f });
    await call(svc.url, 'DELETE', '/ingest/sites/short-lived', { key });
    const deadline = Date.now() + 10_000;
    let events: any[] = [];
    while (Date.now() < deadline) {
      events = (await call(svc.url, 'GET', '/api/sites/short-lived/events', { user: 'admin' })).body.events;
      if (events.some((e) => e.type === 'SitePurged')) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(events.at(-1)).toMatchObject({ type: 'SitePurged', actor: { kind: 'system', name: 'quarantine-ttl' } });
  });

  it('runs compiled code from .build/, and from the TypeScript sources when asked', async () => {
    const compiled = await exec(process.execPath, ['bin/build-server.mjs']);
    const build = compiled.stdout.trim();
    expect(build).toMatch(/^\.build\/[0-9a-f]{16}$/);
    // unchanged sources: the same build again, nothing rebuilt
    expect((await exec(process.execPath, ['bin/build-server.mjs'])).stdout.trim()).toBe(build);
    const fromBuild = await exec(process.execPath, ['bin/sites.mjs', 'keys', 'list'], { env: { ...process.env, ...svc.env } });
    const fromSource = await exec(process.execPath, ['bin/sites.mjs', 'keys', 'list'], { env: { ...process.env, ...svc.env, SITES_FROM_SOURCE: '1' } });
    expect(fromSource.stdout).toBe(fromBuild.stdout);
    expect(fromBuild.stdout).toContain('ci');
  });

  it('a bad configuration value stops start-up with one line naming the variable', async () => {
    const r = await svc.cli(['keys', 'list']).then(() => exec(process.execPath, ['bin/sites.mjs', 'keys', 'list'], { env: { ...process.env, ...svc.env, SITES_VERSIONING_KEEP: '0' } }).catch((e) => e));
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('SITES_VERSIONING_KEEP');
  });
});

/**
 * `sites publish --preview` and `sites previews list|remove` (spec §14, the client side)
 * through the real `sites` executable against the real service: what a pull request's job
 * prints, with a key that holds only the `preview` capability and so can never change what
 * is live. The same commands run from the downloaded client in the action's tests.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../support/http.ts';
import { startService, type RunningService } from '../support/service.ts';

let svc: RunningService;
let work: string;
let previewKey: string;
let publishKey: string;

beforeAll(async () => {
  svc = await startService();
  work = await mkdtemp(join(tmpdir(), 'sites-cli-previews-'));
  previewKey = await svc.createKey(['--name', 'pr-builds', '--grant', 'docs:preview']);
  publishKey = await svc.createKey(['--name', 'main-build', '--grant', 'docs:publish']);
  await site('live', { 'index.html': '<h1>live</h1>', 'guide/index.html': '<p>guide</p>', 'old.html': 'old', 'app.css': 'a{}' });
  const r = await sites(['publish', join(work, 'live'), '--site', 'docs/app', '--title', 'App'], publishKey);
  expect(r.code, r.stderr).toBe(0);
});
afterAll(async () => {
  await svc?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

async function site(dir: string, files: Record<string, string>): Promise<string> {
  await rm(join(work, dir), { recursive: true, force: true });
  for (const [name, body] of Object.entries(files)) {
    await mkdir(join(work, dir, name, '..'), { recursive: true });
    await writeFile(join(work, dir, name), body);
  }
  return join(work, dir);
}

const sites = (args: string[], key?: string) => svc.cli([...args, '--url', svc.url, ...(key ? ['--key', key] : [])]);
const previewUrl = (name: string) => svc.siteUrl('docs/app').replace('//app.', `//${name}--app.`);

describe('sites publish --preview', () => {
  it('publishes a preview with a preview-only key and prints its URL, the counts against live and the changed pages', async () => {
    const dir = await site('pr', { 'index.html': '<h1>changed</h1>', 'guide/index.html': '<p>guide</p>', 'new/index.html': '<p>new</p>', 'app.css': 'a{}' });
    const r = await sites(['publish', dir, '--site', 'docs/app', '--preview', 'pr-42'], previewKey);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const url = previewUrl('pr-42');
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(new RegExp(`^published preview pr-42 of docs/app: 4 files \\(2 new, \\d+ B uploaded\\) to ${url.replace(/[.]/g, '\\.')} \\(revision \\S+\\)$`));
    expect(lines.slice(1)).toEqual(['against live: 1 file added, 1 changed, 1 removed', 'changed pages:', `  ${url}new/`, `  ${url}`]);
    // The preview serves the pull request's files; the live site is what it was.
    expect(await (await fetch(url)).text()).toBe('<h1>changed</h1>');
    expect(await (await fetch(svc.siteUrl('docs/app'))).text()).toBe('<h1>live</h1>');
    const live = await call(svc.url, 'GET', '/api/sites/docs/app', { key: publishKey });
    expect(live.body).toMatchObject({ previews: 1 });
  });

  it('a push with nothing new says so, and a changed push updates the same preview', async () => {
    const dir = join(work, 'pr');
    const again = await sites(['publish', dir, '--site', 'docs/app', '--preview', 'pr-42'], previewKey);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout.split('\n')[0]).toMatch(/ \(0 new, 0 B uploaded\) to .* \(revision \S+, nothing changed\)$/);
    await writeFile(join(dir, 'guide', 'index.html'), '<p>guide, better</p>');
    const pushed = await sites(['publish', dir, '--site', 'docs/app', '--preview', 'pr-42'], previewKey);
    expect(pushed.code, pushed.stderr).toBe(0);
    expect(pushed.stdout).toContain('against live: 1 file added, 2 changed, 1 removed\n');
  });

  it('a preview-only key cannot publish the live site: one line, status 1, nothing changed', async () => {
    const r = await sites(['publish', join(work, 'pr'), '--site', 'docs/app'], previewKey);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^sites: publish failed \(403\): .+\n$/);
    const revisions = await call(svc.url, 'GET', '/api/sites/docs/app/revisions', { key: publishKey });
    expect((revisions.body as { revisions: unknown[] }).revisions).toHaveLength(1);
  });

  it('a preview of a site that is not live yet fails with the service’s reason', async () => {
    const r = await sites(['publish', join(work, 'pr'), '--site', 'docs/nothing-yet', '--preview', 'pr-1'], previewKey);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^sites: publish of the preview pr-1 failed \(404\): .+\n$/);
  });

  it('a bad preview name is bad usage, said before anything is sent', async () => {
    for (const [name, why] of [
      ['v3', 'names a revision'],
      ['pr--1', 'is not a preview name'],
      ['PR-1', 'is not a preview name'],
      ['x'.repeat(60), 'too long for the site'],
    ] as const) {
      const r = await sites(['publish', join(work, 'pr'), '--site', 'docs/app', '--preview', name], 'key_never_sent');
      expect(r.code, name).toBe(2);
      expect(r.stderr, name).toContain(why);
      expect(r.stderr.trimEnd().split('\n'), name).toHaveLength(1);
    }
    const noPreview = await sites(['publish', join(work, 'pr'), '--site', 'docs/app', '--github-comment'], previewKey);
    expect(noPreview).toMatchObject({ code: 2, stderr: 'sites: --github-comment and --pull-request go with --preview NAME\n' });
  });
});

describe('sites previews list|remove', () => {
  it('lists the site’s previews: name, URL, updated, expiry, who', async () => {
    const other = await sites(['publish', join(work, 'pr'), '--site', 'docs/app', '--preview', 'pr-7'], previewKey);
    expect(other.code, other.stderr).toBe(0);
    const r = await sites(['previews', 'list', 'docs/app'], previewKey);
    expect(r.code, r.stderr).toBe(0);
    const [header, ...rows] = r.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^NAME +URL +UPDATED +EXPIRES +BY$/);
    expect(rows.map((l) => l.split(/ +/).slice(0, 2))).toEqual([
      ['pr-42', previewUrl('pr-42')],
      ['pr-7', previewUrl('pr-7')],
    ]);
    expect(rows[0]).toMatch(/ \d{4}-\d\d-\d\d \d\d:\d\dZ +\d{4}-\d\d-\d\d \d\d:\d\dZ +key pr-builds$/);
    const json = await sites(['previews', 'list', 'docs/app', '--json'], previewKey);
    expect((JSON.parse(json.stdout) as { previews: { name: string }[] }).previews.map((p) => p.name)).toEqual(['pr-42', 'pr-7']);
  });

  it('removes a preview; removing it again fails, unless --if-exists', async () => {
    const r = await sites(['previews', 'remove', 'docs/app', 'pr-7'], previewKey);
    expect(r).toMatchObject({ code: 0, stdout: 'removed the preview pr-7 of docs/app\n', stderr: '' });
    const again = await sites(['previews', 'remove', 'docs/app', 'pr-7'], previewKey);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^sites: removing the preview pr-7 failed \(404\): .+\n$/);
    const tolerant = await sites(['previews', 'remove', 'docs/app', 'pr-7', '--if-exists'], previewKey);
    expect(tolerant).toMatchObject({ code: 0, stdout: 'no preview pr-7 of docs/app to remove\n' });
    const list = await sites(['previews', 'list', 'docs/app', '--json'], previewKey);
    expect((JSON.parse(list.stdout) as { previews: { name: string }[] }).previews.map((p) => p.name)).toEqual(['pr-42']);
  });

  it('a key without a grant on the site is refused, whether or not the site exists', async () => {
    const stranger = await svc.createKey(['--name', 'other-team', '--grant', 'blog:preview']);
    for (const path of ['docs/app', 'docs/missing']) {
      const r = await sites(['previews', 'list', path], stranger);
      expect(r.code, path).toBe(1);
      expect(r.stderr, path).toMatch(/^sites: listing the previews failed \(403\): /);
    }
  });

  it('bad usage is status 2 and one line', async () => {
    for (const args of [['previews'], ['previews', 'show', 'docs/app'], ['previews', 'remove', 'docs/app'], ['previews', 'list', 'docs/app', 'extra'], ['previews', 'list', 'docs/app', '--if-exists'], ['previews', 'list', 'docs/pr-1--app']]) {
      const r = await sites(args, previewKey);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.trimEnd().split('\n'), args.join(' ')).toHaveLength(1);
    }
  });
});

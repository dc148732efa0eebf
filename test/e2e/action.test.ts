/**
 * action.yml (the GitHub Actions action) and deploy/gitlab-ci-incremental.yml, exercised:
 * each is parsed with test/support/mini-yaml.ts and its shell is run with bash against a
 * real service, with the inputs / CI variables in its environment, from an empty folder:
 * the runner needs nothing but Node and curl, and the client comes from the service.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEFT_OUT_LINE, PUBLISHED, SECRETS, writeLeakyDist } from '../support/leaky-dist.ts';
import { parseYaml, type Yaml } from '../support/mini-yaml.ts';
import { freePort, startService, type RunningService } from '../support/service.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');
const run = promisify(execFile);
type Map = { [key: string]: Yaml };

let svc: RunningService;
let key: string;
let work: string;

beforeAll(async () => {
  svc = await startService();
  key = await svc.createKey(['--name', 'ci', '--grant', 'docs:publish']);
  work = await mkdtemp(join(tmpdir(), 'sites-action-'));
  await mkdir(join(work, 'dist'), { recursive: true });
  await writeFile(join(work, 'dist', 'index.html'), '<h1>from the action</h1>');
  await writeFile(join(work, 'dist', 'app.js'), 'console.log(1)');
});
afterAll(async () => {
  await svc?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

async function bash(script: string, env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const file = join(work, `step-${Math.random().toString(36).slice(2)}.sh`);
  await writeFile(file, script);
  try {
    const { stdout, stderr } = await run('bash', ['--noprofile', '--norc', '-eo', 'pipefail', file], { cwd: work, env: { PATH: process.env.PATH ?? '', HOME: work, ...env } });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const x = e as { code?: number; stdout?: string; stderr?: string };
    return { code: x.code ?? -1, stdout: x.stdout ?? '', stderr: x.stderr ?? '' };
  }
}

describe('the GitHub Actions action', () => {
  const action = async () => parseYaml(await readFile(join(ROOT, 'action.yml'), 'utf8')) as Map;

  it('declares the inputs url, key, dir, site, title, include-dotfiles (and the preview ones) and the outputs url and revision of a composite step', async () => {
    const a = await action();
    // preview, remove-preview, github-token and pull-request: test/e2e/preview-workflows.test.ts.
    expect(Object.keys(a.inputs as Map).sort()).toEqual(['dir', 'github-token', 'include-dotfiles', 'key', 'preview', 'pull-request', 'remove-preview', 'site', 'title', 'url']);
    expect(Object.keys(a.outputs as Map).sort()).toEqual(['revision', 'url']);
    expect((a.runs as Map).using).toBe('composite');
    expect(((a.outputs as Map).url as Map).value).toBe('${{ steps.publish.outputs.url }}');
  });

  async function runAction(inputs: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string; outputs: string; summary: string }> {
    const a = await action();
    const step = (a.runs as Map).steps as Map[];
    expect(step).toHaveLength(1);
    const [publish] = step as [Map];
    expect(publish.id).toBe('publish');
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries(publish.env as Map)) {
      // An input's default applies when the workflow does not give it, as on GitHub.
      env[name] = String(value).replace(/\$\{\{\s*inputs\.([\w-]+)\s*\}\}/g, (_, input: string) => inputs[input] ?? String(((a.inputs as Map)[input] as Map).default ?? ''));
    }
    const outputFile = join(work, `output-${Math.random().toString(36).slice(2)}`);
    const summaryFile = join(work, `summary-${Math.random().toString(36).slice(2)}`);
    await writeFile(outputFile, '');
    await writeFile(summaryFile, '');
    const result = await bash(String(publish.run), { ...env, RUNNER_TEMP: work, GITHUB_OUTPUT: outputFile, GITHUB_STEP_SUMMARY: summaryFile });
    return { ...result, outputs: await readFile(outputFile, 'utf8'), summary: await readFile(summaryFile, 'utf8') };
  }

  it('publishes the folder and sets the url and revision outputs', async () => {
    const r = await runAction({ url: svc.url, key, dir: 'dist', site: 'docs/action', title: 'Action' });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^published 2 files \(2 new, /);
    expect(r.outputs).toMatch(new RegExp(`^url=${svc.siteUrl('docs/action').replace(/[.]/g, '\\.')}\\nrevision=\\d{8}T\\d{6}\\.\\d{9}Z\\n$`));
    expect(await (await fetch(svc.siteUrl('docs/action'))).text()).toBe('<h1>from the action</h1>');
  });

  it('writes a step summary: the site, its URL, the revision and the counts', async () => {
    await writeFile(join(work, 'dist', 'app.js'), 'console.log(2)');
    const r = await runAction({ url: svc.url, key, dir: 'dist', site: 'docs/action' });
    expect(r.code, r.stderr).toBe(0);
    const revision = /revision=(\S+)/.exec(r.outputs)![1]!;
    expect(r.summary).toBe(
      [
        '### Published `docs/action`',
        '',
        '| | |',
        '| --- | --- |',
        `| URL | ${svc.siteUrl('docs/action')} |`,
        `| Revision | \`${revision}\` |`,
        '| Files | 2 files: 1 new, 14 B uploaded |',
        '| Left out | none |',
        '',
        '',
      ].join('\n'),
    );
  });

  it('on a dist holding .env, .git/config, .DS_Store and node_modules/, publishes none of them and lists them in the summary', async () => {
    await writeLeakyDist(join(work, 'leaky'));
    const r = await runAction({ url: svc.url, key, dir: 'leaky', site: 'docs/leaky', title: 'Leaky' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(`${LEFT_OUT_LINE}node sites.mjs publish --help says how to change it)\n`);
    expect(r.summary).toContain('| Files | 3 files: 3 new, ');
    expect(r.summary).toContain('| Left out | 5: `.DS_Store`, `.env`, `.git/`, `assets/.DS_Store`, `node_modules/` |');
    for (const secret of SECRETS) expect((await fetch(`${svc.siteUrl('docs/leaky')}${secret}`)).status, secret).toBe(404);
    for (const [path, body] of Object.entries(PUBLISHED)) expect(await (await fetch(`${svc.siteUrl('docs/leaky')}${path}`)).text(), path).toBe(body);
  });

  it('fails the step with the service’s one-line error for a refused key, and an error annotation carrying it', async () => {
    const r = await runAction({ url: svc.url, key: 'key_wrong', dir: 'dist', site: 'docs/action' });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toBe('sites: publish failed (401): unknown, expired or revoked API key\n');
    expect(r.stdout).toBe('::error title=Publish to sites failed::publish failed (401): unknown, expired or revoked API key\n');
    expect(r.summary).toBe('');
  });

  it('annotates a service it cannot download the client from', async () => {
    const dead = `http://127.0.0.1:${await freePort()}`;
    const r = await runAction({ url: dead, key, dir: 'dist', site: 'docs/action' });
    expect(r.code).not.toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^::error title=Publish to sites failed::cannot download the client from ${dead}/cli/sites\\.mjs: curl: \\(7\\) .+\\n$`));
  });
});

describe('the GitLab CI job with the client', () => {
  it('downloads the client with node and publishes incrementally', async () => {
    const job = (parseYaml(await readFile(join(ROOT, 'deploy', 'gitlab-ci-incremental.yml'), 'utf8')) as Map)['publish-site'] as Map;
    const predefined: Record<string, string> = { CI_PROJECT_NAME: 'gl-site', CI_PROJECT_TITLE: 'GitLab site', SITES_URL: svc.url, SITES_KEY: key };
    const vars: Record<string, string> = { ...predefined };
    for (const [name, value] of Object.entries(job.variables as Map)) vars[name] = String(value).replace(/\$\{?(\w+)\}?/g, (_, v: string) => predefined[v] ?? '');
    vars.SITE_DIR = 'dist';
    const script = (job.script as string[]).join('\n');
    const r = await bash(script, vars);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/published 2 files/);
    expect(await (await fetch(svc.siteUrl('docs/gl-site'))).text()).toBe('<h1>from the action</h1>');
  });
});

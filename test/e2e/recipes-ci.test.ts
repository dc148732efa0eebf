/**
 * deploy/github-actions.yml and deploy/gitlab-ci.yml, exercised: each file is parsed (with
 * test/support/mini-yaml.ts: no YAML parser is installed), and the publishing job's own shell
 * is run with bash against the real service, with the CI's variables in its environment, the
 * way the CI would run it:
 *
 * - GitHub Actions: every `run` step of `jobs.publish`, in order, as
 *   `bash --noprofile --norc -eo pipefail FILE` (what `shell: bash` runs), with the workflow,
 *   job and step `env` after evaluating their `${{ a.b.c }}` expressions (plain property paths
 *   into `vars`, `secrets`, `github`, `steps`; anything else fails the test), plus the runner's
 *   RUNNER_TEMP, GITHUB_OUTPUT and GITHUB_STEP_SUMMARY. `uses:` steps (the checkout) and the
 *   step named `Build` (the user's own build) are not run: the test creates the built folder.
 * - GitLab CI: `before_script` and `script` of the `publish-site` job, joined into one script
 *   run as `bash -e FILE` (each line must succeed, as in the runner), with the job's
 *   `variables` after expanding `$NAME` / `${NAME}` from the predefined and project variables.
 *   The `build-site` job (the user's build) is not run: its artifact folder is created here.
 *
 * Only PATH, HOME and LANG are passed on from the test's own environment.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseYaml, type Yaml } from '../support/mini-yaml.ts';
import { startService, type RunningService } from '../support/service.ts';

const DEPLOY = resolve(import.meta.dirname, '..', '..', 'deploy');
type Map = { [key: string]: Yaml };

let svc: RunningService;
let key: string;
let adminKey: string;
let work: string;

beforeAll(async () => {
  svc = await startService();
  key = await svc.createKey(['--name', 'ci-recipe', '--grant', 'docs:publish']);
  adminKey = await svc.createKey(['--name', 'reader', '--admin']);
  work = await mkdtemp(join(tmpdir(), 'sites-recipes-ci-'));
});
afterAll(async () => {
  await svc?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

function map(value: Yaml | undefined, what: string): Map {
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error(`${what}: expected a mapping`);
  return value;
}
function list(value: Yaml | undefined, what: string): Yaml[] {
  if (!Array.isArray(value)) throw new Error(`${what}: expected a list`);
  return value;
}
function str(value: Yaml | undefined, what: string): string {
  if (typeof value !== 'string') throw new Error(`${what}: expected a string`);
  return value;
}

function baseEnv(): Record<string, string> {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', LANG: 'C.UTF-8' };
}

function bash(args: string[], cwd: string, env: Record<string, string>) {
  return runShell('bash', args, cwd, env);
}

function runShell(shell: string, args: string[], cwd: string, env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(shell, args, { cwd, env, timeout: 20_000 }, (err, stdout, stderr) => {
      done({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

/** A built site, standing in for the checkout and the user's build. */
async function builtSite(root: string, dir: string, html: string): Promise<void> {
  await mkdir(join(root, dir, 'assets'), { recursive: true });
  await writeFile(join(root, dir, 'index.html'), html);
  await writeFile(join(root, dir, 'assets', 'app.css'), 'h1 { color: teal }');
}

async function site(path: string) {
  const res = await fetch(`${svc.url}/api/sites/${path}`, { headers: { Authorization: `Bearer ${adminKey}` } });
  expect(res.status).toBe(200);
  return res.json();
}

// ---------------------------------------------------------------------------------------
// GitHub Actions

/** `${{ a.b.c }}` → the value at that path of the contexts; any other expression is refused. */
function evaluate(text: string, contexts: Record<string, unknown>): string {
  return text.replace(/\$\{\{(.*?)\}\}/g, (_m, expr: string) => {
    const path = expr.trim();
    if (!/^[a-z_]+(?:\.[A-Za-z0-9_-]+)+$/.test(path)) throw new Error(`unsupported expression: ${path}`);
    let value: unknown = contexts;
    for (const part of path.split('.')) value = (value as Record<string, unknown> | undefined)?.[part];
    if (typeof value !== 'string') throw new Error(`expression ${path} has no string value in the test's contexts`);
    return value;
  });
}

function envOf(node: Map, contexts: Record<string, unknown>): Record<string, string> {
  const env = node.env === undefined ? {} : map(node.env, 'env');
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, evaluate(str(v, `env.${k}`), contexts)]));
}

async function runGithubJob(opts: { key: string; titleOverride?: string; slug: string }) {
  const workflow = map(parseYaml(await readFile(join(DEPLOY, 'github-actions.yml'), 'utf8')), 'workflow');
  expect(map(map(workflow.defaults, 'defaults').run, 'defaults.run').shell).toBe('bash');
  const job = map(map(workflow.jobs, 'jobs').publish, 'jobs.publish');
  const root = await mkdtemp(join(work, 'gh-'));
  const workspace = join(root, 'workspace');
  const runnerTemp = join(root, 'runner-temp');
  await mkdir(runnerTemp, { recursive: true });
  const contexts: Record<string, unknown> = {
    vars: { SITES_URL: svc.url },
    secrets: { SITES_KEY: opts.key },
    github: {
      event: { repository: { name: opts.slug } },
      repository: `acme/${opts.slug}`,
      server_url: 'https://github.com',
      ref: 'refs/heads/main',
    },
    steps: {} as Record<string, { outputs: Record<string, string> }>,
  };
  const jobEnv = { ...envOf(workflow, contexts), ...envOf(job, contexts) };
  if (opts.titleOverride !== undefined) jobEnv.SITE_TITLE = opts.titleOverride;
  await builtSite(workspace, jobEnv.SITE_DIR!, `<h1>${opts.slug} from GitHub Actions</h1>`);

  const ran: string[] = [];
  let last = { code: 0, stdout: '', stderr: '' };
  for (const [index, raw] of list(job.steps, 'steps').entries()) {
    const step = map(raw, `steps[${index}]`);
    if (step.uses !== undefined) {
      expect(str(step.uses, 'uses')).toMatch(/^actions\/checkout@v\d+$/);
      continue;
    }
    if (step.name === 'Build') continue; // the user's build: the test made $SITE_DIR instead
    const run = str(step.run, `steps[${index}].run`);
    expect(run, 'expressions belong in env, never inside a script').not.toContain('${{');
    const output = join(runnerTemp, `output-${index}`);
    await writeFile(output, '');
    const script = join(runnerTemp, `step-${index}.sh`);
    await writeFile(script, run);
    last = await bash(['--noprofile', '--norc', '-eo', 'pipefail', script], workspace, {
      ...baseEnv(),
      CI: 'true',
      GITHUB_ACTIONS: 'true',
      GITHUB_WORKSPACE: workspace,
      RUNNER_TEMP: runnerTemp,
      GITHUB_OUTPUT: output,
      GITHUB_STEP_SUMMARY: join(runnerTemp, 'summary.md'),
      ...jobEnv,
      ...envOf(step, contexts),
    });
    ran.push(String(step.name ?? index));
    if (last.code !== 0) break;
    if (typeof step.id === 'string') {
      const outputs = Object.fromEntries(
        (await readFile(output, 'utf8'))
          .split('\n')
          .filter(Boolean)
          .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
      );
      (contexts.steps as Record<string, unknown>)[step.id] = { outputs };
    }
  }
  const summary = await readFile(join(runnerTemp, 'summary.md'), 'utf8').catch(() => '');
  return { workflow, job, jobEnv, contexts, ran, last, summary };
}

describe('deploy/github-actions.yml', () => {
  it('keeps the key to the publish step, from a secret, and the URL from a variable', async () => {
    const workflow = map(parseYaml(await readFile(join(DEPLOY, 'github-actions.yml'), 'utf8')), 'workflow');
    const job = map(map(workflow.jobs, 'jobs').publish, 'jobs.publish');
    const steps = list(job.steps, 'steps').map((s, i) => map(s, `steps[${i}]`));
    const holders = [workflow, job, ...steps].filter((n) => n.env !== undefined && 'SITES_KEY' in map(n.env, 'env'));
    expect(holders).toHaveLength(1);
    expect(holders[0]!.id).toBe('publish');
    expect(map(holders[0]!.env, 'env')).toMatchObject({ SITES_KEY: '${{ secrets.SITES_KEY }}', SITES_URL: '${{ vars.SITES_URL }}' });
    expect(map(workflow.permissions, 'permissions')).toEqual({ contents: 'read' });
    expect(steps.filter((s) => s.name === 'Build')).toHaveLength(1);
  });

  it('runs its steps against the real service: the site is served and the URL is the job output', async () => {
    const { job, contexts, ran, last, summary } = await runGithubJob({ key, slug: 'gh-project' });
    expect(last.stderr).toBe('');
    expect(last.code).toBe(0);
    expect(ran).toEqual(['Pack', 'Publish']);
    const url = svc.siteUrl('docs/gh-project');
    expect(last.stdout).toContain(`published ${url}`);
    expect(summary).toContain(url);
    // environment.url is what GitHub shows on the run: the step's output.
    expect(evaluate(str(map(job.environment, 'environment').url, 'environment.url'), contexts)).toBe(url);

    const page = await fetch(url);
    expect(await page.text()).toBe('<h1>gh-project from GitHub Actions</h1>');
    expect(await (await fetch(`${url}assets/app.css`)).text()).toBe('h1 { color: teal }');
    expect(await site('docs/gh-project')).toMatchObject({
      title: 'acme/gh-project',
      repo: 'https://github.com/acme/gh-project',
      date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
    });
  });

  it('escapes a title with quotes and backslashes into the meta JSON', async () => {
    const title = 'The "docs" \\ of acme';
    const { last } = await runGithubJob({ key, slug: 'gh-quoted', titleOverride: title });
    expect(last.code).toBe(0);
    expect((await site('docs/gh-quoted')).title).toBe(title);
  });

  it("fails the step with the service's error body on a refused key", async () => {
    const { last, ran } = await runGithubJob({ key: 'key_not-a-real-one', slug: 'gh-refused' });
    expect(ran).toEqual(['Pack', 'Publish']);
    expect(last.code).toBe(1);
    expect(JSON.parse(last.stderr.split('\n').find((l) => l.startsWith('{'))!)).toMatchObject({ code: 'unauthenticated' });
    expect(last.stderr).not.toContain('key_not-a-real-one');
  });
});

// ---------------------------------------------------------------------------------------
// GitLab CI

/** GitLab's expansion of `$NAME` and `${NAME}` in `variables` (unknown names become ""). */
function expand(text: string, vars: Record<string, string>): string {
  return text.replace(/\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))/g, (_m, a?: string, b?: string) => vars[(a ?? b)!] ?? '');
}

async function runGitlabJob(opts: { key: string; projectName: string; shell?: string }) {
  const pipeline = map(parseYaml(await readFile(join(DEPLOY, 'gitlab-ci.yml'), 'utf8')), 'pipeline');
  const job = map(pipeline['publish-site'], 'publish-site');
  const root = await mkdtemp(join(work, 'gl-'));
  const project = join(root, 'project');
  await mkdir(project, { recursive: true });
  const ci: Record<string, string> = {
    CI: 'true',
    GITLAB_CI: 'true',
    CI_PROJECT_DIR: project,
    CI_PROJECT_NAME: opts.projectName,
    CI_PROJECT_TITLE: 'Acme Handbook',
    CI_PROJECT_URL: `https://gitlab.example.com/acme/${opts.projectName}`,
    CI_COMMIT_BRANCH: 'main',
    CI_DEFAULT_BRANCH: 'main',
    // project CI/CD variables
    SITES_URL: svc.url,
    SITES_KEY: opts.key,
  };
  const jobVars: Record<string, string> = {};
  for (const scope of [pipeline.variables, job.variables]) {
    if (scope === undefined) continue;
    for (const [k, v] of Object.entries(map(scope, 'variables'))) jobVars[k] = expand(str(v, `variables.${k}`), { ...ci, ...jobVars });
  }
  await builtSite(project, jobVars.SITE_DIR!, `<h1>${opts.projectName} from GitLab CI</h1>`);
  const lines = [...(job.before_script === undefined ? [] : list(job.before_script, 'before_script')), ...list(job.script, 'script')].map((l, i) => str(l, `script[${i}]`));
  const script = join(root, 'job.sh');
  await writeFile(script, lines.join('\n'));
  const result = await runShell(opts.shell ?? 'bash', ['-e', script], project, { ...baseEnv(), ...ci, ...jobVars });
  return { pipeline, job, jobVars, project, result };
}

describe('deploy/gitlab-ci.yml', () => {
  it('publishes the build artifact after the build job, with nothing installed at run time', async () => {
    const pipeline = map(parseYaml(await readFile(join(DEPLOY, 'gitlab-ci.yml'), 'utf8')), 'pipeline');
    const job = map(pipeline['publish-site'], 'publish-site');
    expect(job.before_script).toBeUndefined();
    expect(list(job.needs, 'needs')).toEqual(['build-site']);
    const build = map(pipeline['build-site'], 'build-site');
    expect(list(map(build.artifacts, 'artifacts').paths, 'paths')).toContain(map(job.variables, 'variables').SITE_DIR);
    expect(JSON.stringify(job.variables)).not.toContain('SITES_KEY'); // a masked project variable, not in the file
  });

  it('runs its script against the real service: the site is served and the URL goes to the environment', async () => {
    const { job, jobVars, project, result } = await runGitlabJob({ key, projectName: 'gl-project' });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const url = svc.siteUrl('docs/gl-project');
    expect(result.stdout).toContain(`published ${url}`);
    // artifacts:reports:dotenv → environment:url
    const dotenv = Object.fromEntries(
      (await readFile(join(project, 'deploy.env'), 'utf8'))
        .split('\n')
        .filter(Boolean)
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
    );
    expect(str(map(map(job.artifacts, 'artifacts').reports, 'reports').dotenv, 'dotenv')).toBe('deploy.env');
    expect(expand(str(map(job.environment, 'environment').url, 'environment.url'), { ...jobVars, ...dotenv })).toBe(url);

    expect(await (await fetch(url)).text()).toBe('<h1>gl-project from GitLab CI</h1>');
    expect(await site('docs/gl-project')).toMatchObject({ title: 'Acme Handbook', repo: 'https://gitlab.example.com/acme/gl-project' });
  });

  it('its script is POSIX sh too (the curl image has busybox sh, not bash)', async () => {
    const { result } = await runGitlabJob({ key, projectName: 'gl-posix', shell: '/bin/sh' });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(await (await fetch(svc.siteUrl('docs/gl-posix'))).text()).toBe('<h1>gl-posix from GitLab CI</h1>');
  });

  it("fails the job with the service's error body when the key may not publish there", async () => {
    const narrow = await svc.createKey(['--name', 'other-site', '--grant-site', 'docs/elsewhere:publish']);
    const { result } = await runGitlabJob({ key: narrow, projectName: 'gl-refused' });
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stderr.split('\n').find((l) => l.startsWith('{'))!)).toMatchObject({ code: 'forbidden' });
    expect((await fetch(svc.siteUrl('docs/gl-refused'))).status).toBe(404);
  });
});

describe('the YAML reader the recipes are read with', () => {
  it('reads the subset the recipes use', () => {
    expect(parseYaml('a:\n  - x: "1" # c\n    y: |\n      two\n      lines\n  - [p, \'q\']\nb:\n- z\n')).toEqual({
      a: [{ x: '1', y: 'two\nlines\n' }, ['p', 'q']],
      b: ['z'],
    });
  });
  it('refuses what it does not read, instead of misreading it', () => {
    for (const bad of ['a: &x 1', 'a: *x', 'a: !!str 1', 'a: {b: 1}', 'a: >\n  folded', 'a: plain\n  continued', 'a: 1\na: 2', 'a:\n\tb: 1']) {
      expect(() => parseYaml(bad), bad).toThrow(/mini-yaml/);
    }
  });
});

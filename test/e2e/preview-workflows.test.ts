/**
 * Pull-request previews from CI, end to end (spec §14, issue 26 item 3): the two GitHub
 * workflows (deploy/github-preview-build.yml, deploy/github-preview.yml) and the action they
 * use run a pull request's life — opened, pushed twice, closed — against the real service
 * and a local stand-in for GitHub's REST API (test/support/github-standin.ts), each job in an
 * empty folder with nothing but Node, curl and bash (test/support/github-runner.ts runs the
 * steps); the GitLab recipe's two jobs run with bash the same way.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGitHubStandIn, type GitHubStandIn } from '../support/github-standin.ts';
import { loadWorkflow, runAction, runJob, type Context, type Runner } from '../support/github-runner.ts';
import { call } from '../support/http.ts';
import { parseYaml, type Yaml } from '../support/mini-yaml.ts';
import { startService, type RunningService } from '../support/service.ts';
import { execFile } from 'node:child_process';

type Map = { [key: string]: Yaml };
const ROOT = resolve(import.meta.dirname, '..', '..');
const REPO = 'acme/docs';
const SITE = 'docs/my-project';
const BOT = { login: 'github-actions[bot]', type: 'Bot' } as const;

let svc: RunningService;
let gh: GitHubStandIn;
let work: string;
let previewKey: string;
let adminKey: string;
let liveRevision: string;

beforeAll(async () => {
  svc = await startService();
  gh = await startGitHubStandIn({ ghs_job: BOT, ghs_fork: 'read-only' });
  work = await mkdtemp(join(tmpdir(), 'sites-preview-ci-'));
  adminKey = await svc.createKey(['--name', 'admin', '--admin']);
  // What the workflows' headers tell users to create: previews of this one site, nothing else.
  previewKey = await svc.createKey(['--name', 'gh-previews', '--grant-site', `${SITE}:preview`]);
  await mkdir(join(work, 'live'), { recursive: true });
  await writeFile(join(work, 'live', 'index.html'), '<h1>live</h1>');
  await writeFile(join(work, 'live', 'about.html'), '<p>about</p>');
  const r = await svc.cli(['publish', join(work, 'live'), '--site', SITE, '--title', 'My project', '--url', svc.url, '--key', adminKey]);
  expect(r.code, r.stderr).toBe(0);
  liveRevision = /\(revision (\S+)\)/.exec(r.stdout)![1]!;
});
afterAll(async () => {
  await gh?.close();
  await svc?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

const previews = async () => ((await call(svc.url, 'GET', `/api/sites/${SITE}/previews`, { key: adminKey })).body as { previews: { name: string; revision: string; url: string }[] }).previews;
const previewUrl = (name: string) => svc.siteUrl(SITE).replace('//my-project.', `//${name}--my-project.`);

let runs = 0;
async function runner(artifacts: Record<string, string> = {}): Promise<Runner> {
  const dir = join(work, `runner-${++runs}`);
  await mkdir(dir, { recursive: true });
  return { dir, apiUrl: gh.apiUrl, artifacts };
}

const context = (event_name: string, event: unknown, token = 'ghs_job'): Context => ({
  github: { event_name, event, token, repository: REPO },
  vars: { SITES_URL: svc.url },
  secrets: { SITES_PREVIEW_KEY: previewKey },
});

/** Part 1 on `pull_request`: the build (the test's files stand in for it), then Pack and the upload. */
async function build(number: number, sha: string, files: Record<string, string>) {
  const wf = await loadWorkflow('github-preview-build.yml');
  const r = await runner();
  for (const [name, body] of Object.entries(files)) {
    await mkdir(join(r.dir, 'workspace', 'dist', name, '..'), { recursive: true });
    await writeFile(join(r.dir, 'workspace', 'dist', name), body);
  }
  const job = await runJob(wf, 'build', context('pull_request', { action: 'synchronize', number, pull_request: { number, head: { sha } } }), r);
  expect(job.code, JSON.stringify(job.steps)).toBe(0);
  return r.artifacts;
}

/** Part 2 on `workflow_run` after the build: the publish job, with the build's artifacts. */
async function publish(artifacts: Record<string, string>, sha: string, token = 'ghs_job') {
  const wf = await loadWorkflow('github-preview.yml');
  const event = { action: 'completed', workflow_run: { id: 4242, event: 'pull_request', conclusion: 'success', head_sha: sha, head_branch: 'feature', pull_requests: [] } };
  return runJob(wf, 'publish', context('workflow_run', event, token), await runner(artifacts));
}

/** Part 2 on `pull_request_target` closed: the remove job. */
async function close(number: number) {
  const wf = await loadWorkflow('github-preview.yml');
  return runJob(wf, 'remove', context('pull_request_target', { action: 'closed', number, pull_request: { number, state: 'closed' } }), await runner());
}

const actionStep = (job: { steps: { name: string; stdout: string; stderr: string }[] }) => job.steps.find((s) => s.name.includes('/sites@'))!;

describe('a pull request’s life through the GitHub workflows and the action', () => {
  it('opened, pushed twice, closed: one preview updated in place, one comment created then edited, both gone on close', async () => {
    const pr = 7;
    const comments = () => gh.comments(REPO, pr);
    gh.requests.length = 0;

    // Opened.
    gh.setPull(REPO, pr, { state: 'open', headSha: 'a'.repeat(40) });
    let job = await publish(await build(pr, 'a'.repeat(40), { 'index.html': '<h1>live</h1>', 'about.html': '<p>about, reworded</p>', 'news/index.html': '<p>news</p>' }), 'a'.repeat(40));
    expect(job.code, JSON.stringify(job.steps)).toBe(0);
    const opened = actionStep(job);
    expect(opened.stdout).toContain(`published preview pr-7 of ${SITE}: 3 files`);
    expect(opened.stdout).toContain('against live: 1 file added, 1 changed, 0 removed\n');
    expect(opened.stdout).toContain(`changed pages:\n  ${previewUrl('pr-7')}news/\n  ${previewUrl('pr-7')}about.html\n`);
    expect(opened.stdout).toMatch(/created the comment on pull request #7: http/);
    expect(comments()).toHaveLength(1);
    const first = comments()[0]!;
    expect(first.user).toEqual(BOT);
    expect(first.body).toContain(`<!-- sites-preview: ${SITE} -->`);
    expect(first.body).toContain(`(${previewUrl('pr-7')})`);
    expect(first.body).toContain('| Against live | 1 file added, 1 changed, 0 removed |');
    expect(first.body).toContain(`- [\`/news/\`](${previewUrl('pr-7')}news/)`);
    expect(first.body).toContain('(commit `aaaaaaaaaaaa`)');
    // The run's summary page says the same, and the step's url output is the preview's.
    expect(job.summary).toContain('### Preview `pr-7` of `docs/my-project`');
    expect(job.summary).toContain(`| URL | ${previewUrl('pr-7')} |`);
    expect(job.summary).toContain('| Against live | 1 file added, 1 changed, 0 removed |');
    expect(job.summary).toContain(`Changed pages:\n\n- ${previewUrl('pr-7')}news/\n- ${previewUrl('pr-7')}about.html\n`);
    expect(await (await fetch(`${previewUrl('pr-7')}about.html`)).text()).toBe('<p>about, reworded</p>');
    expect(await (await fetch(`${svc.siteUrl(SITE)}about.html`)).text()).toBe('<p>about</p>');
    expect(job.outputs['pr']).toEqual({ number: '7' });
    let [p] = await previews();
    expect(p).toMatchObject({ name: 'pr-7', url: previewUrl('pr-7') });
    const firstRevision = p!.revision;

    // Pushed twice: the same comment, edited; the same preview, new content.
    for (const [sha, about] of [['b'.repeat(40), 'second'], ['c'.repeat(40), 'third']] as const) {
      gh.setPull(REPO, pr, { state: 'open', headSha: sha });
      job = await publish(await build(pr, sha, { 'index.html': '<h1>live</h1>', 'about.html': `<p>${about}</p>`, 'news/index.html': '<p>news</p>' }), sha);
      expect(job.code, JSON.stringify(job.steps)).toBe(0);
      expect(actionStep(job).stdout).toMatch(/updated the comment on pull request #7/);
      expect(comments()).toHaveLength(1);
      expect(comments()[0]!.id).toBe(first.id);
      expect(comments()[0]!.body).toContain(`(commit \`${sha.slice(0, 12)}\`)`);
    }
    [p] = await previews();
    expect(p!.revision).not.toBe(firstRevision);
    expect(comments()[0]!.body).toContain(`\`${p!.revision}\``);

    // Closed.
    gh.setPull(REPO, pr, { state: 'closed', headSha: 'c'.repeat(40) });
    job = await close(pr);
    expect(job.code, JSON.stringify(job.steps)).toBe(0);
    expect(actionStep(job).stdout).toContain(`removed the preview pr-7 of ${SITE}\nupdated the comment on pull request #7`);
    expect(await previews()).toEqual([]);
    expect(comments()).toHaveLength(1);
    expect(comments()[0]!.body).toContain('Removed: the pull request was closed.');
    expect(job.summary).toContain('Removed.');

    // Four publishes and a close made one comment: created once, edited three times.
    const writes = gh.requests.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path}`);
    expect(writes).toEqual([
      `POST /api/v3/repos/${REPO}/issues/7/comments`,
      ...Array(3).fill(`PATCH /api/v3/repos/${REPO}/issues/comments/${first.id}`),
    ]);
    // And the live site never moved.
    const revisions = (await call(svc.url, 'GET', `/api/sites/${SITE}/revisions`, { key: adminKey })).body as { revisions: { id: string }[] };
    expect(revisions.revisions.map((r) => r.id)).toEqual([liveRevision]);
  });

  it('a build that names another pull request in its artifact publishes nothing and comments nowhere', async () => {
    gh.setPull(REPO, 1, { state: 'open', headSha: 'd'.repeat(40) });
    gh.setPull(REPO, 8, { state: 'open', headSha: 'e'.repeat(40) });
    const before = gh.requests.filter((r) => r.method !== 'GET').length;
    // Pull request 8's build writes "1" where its number goes: it would take over #1's preview and comment.
    const artifacts = await build(8, 'e'.repeat(40), { 'index.html': '<h1>defaced</h1>' });
    await writeFile(join(artifacts.preview!, 'pull-request'), '1\n');
    const job = await publish(artifacts, 'e'.repeat(40));
    expect(job.code).not.toBe(0);
    expect(job.steps.at(-1)).toMatchObject({ name: 'Which pull request' });
    expect(job.steps.at(-1)!.stdout).toContain(`::error title=Preview::pull request #1 is not at ${'e'.repeat(40)}, the commit that was built`);
    // Nor does a number that is not one reach the API.
    await writeFile(join(artifacts.preview!, 'pull-request'), '1/../../orgs/x\n');
    const odd = await publish(artifacts, 'e'.repeat(40));
    expect(odd.steps.at(-1)!.stdout).toContain("::error title=Preview::the build's artifact names no pull request");
    expect(await previews()).toEqual([]);
    expect(gh.requests.filter((r) => r.method !== 'GET').length).toBe(before);
  });

  it('a pull request closed before its build finished gets no preview', async () => {
    gh.setPull(REPO, 9, { state: 'closed', headSha: 'f'.repeat(40) });
    const job = await publish(await build(9, 'f'.repeat(40), { 'index.html': '<h1>late</h1>' }), 'f'.repeat(40));
    expect(job.code).toBe(0);
    expect(job.steps.at(-1)).toMatchObject({ skipped: true });
    expect(await previews()).toEqual([]);
  });

  it('a token GitHub refuses to comment with leaves the preview up and says why in a warning annotation', async () => {
    gh.setPull(REPO, 10, { state: 'open', headSha: '1'.repeat(40) });
    const job = await publish(await build(10, '1'.repeat(40), { 'index.html': '<h1>ten</h1>' }), '1'.repeat(40), 'ghs_fork');
    expect(job.code, JSON.stringify(job.steps)).toBe(0);
    expect(actionStep(job).stdout).toContain('::warning title=Publish to sites::the pull request\'s comment was not updated: GitHub answered 403 to commenting on #10: Resource not accessible by integration\n');
    expect((await previews()).map((p) => p.name)).toEqual(['pr-10']);
    expect(gh.comments(REPO, 10)).toEqual([]);
  });
});

describe('the workflows keep the key away from the pull request’s code', () => {
  it('the build runs on pull_request with a read-only token and no secret; the publisher never checks out or runs the pull request', async () => {
    const buildText = await readFile(join(ROOT, 'deploy', 'github-preview-build.yml'), 'utf8');
    const build = parseYaml(buildText) as Map;
    expect(Object.keys(build.on as Map)).toEqual(['pull_request']);
    expect(build.permissions).toEqual({ contents: 'read' });
    expect(buildText.replace(/^\s*#.*$/gm, '')).not.toMatch(/secrets\.|github\.token|pull_request_target|workflow_run/);

    const wfText = await readFile(join(ROOT, 'deploy', 'github-preview.yml'), 'utf8');
    const wf = parseYaml(wfText) as Map;
    expect(Object.keys(wf.on as Map).sort()).toEqual(['pull_request_target', 'workflow_run']);
    expect(((wf.on as Map).workflow_run as Map).workflows).toEqual([build.name]);
    expect(((wf.on as Map).pull_request_target as Map).types).toEqual(['closed']);
    expect(wf.permissions).toEqual({});
    const code = wfText.replace(/^\s*#.*$/gm, '');
    expect(code).not.toMatch(/actions\/checkout|head_ref|head\.sha|npm |yarn |pnpm /);
    const jobs = wf.jobs as Map;
    expect((jobs.publish as Map).if).toBe("github.event_name == 'workflow_run' && github.event.workflow_run.event == 'pull_request' && github.event.workflow_run.conclusion == 'success'");
    expect((jobs.remove as Map).if).toBe("github.event_name == 'pull_request_target'");
    expect((jobs.publish as Map).permissions).toEqual({ actions: 'read', 'pull-requests': 'write' });
    expect((jobs.remove as Map).permissions).toEqual({ 'pull-requests': 'write' });
  });

  it('the action declares the preview inputs next to the publishing ones', async () => {
    const action = parseYaml(await readFile(join(ROOT, 'action.yml'), 'utf8')) as Map;
    expect(Object.keys(action.inputs as Map).sort()).toEqual(['dir', 'github-token', 'include-dotfiles', 'key', 'preview', 'pull-request', 'remove-preview', 'site', 'title', 'url']);
    const r = await runner();
    await mkdir(join(r.dir, 'w'), { recursive: true });
    const bad = await runAction({ url: svc.url, key: previewKey, site: SITE, 'remove-preview': 'yes' }, { PATH: process.env.PATH ?? '', HOME: r.dir, RUNNER_TEMP: join(r.dir, 'w') }, join(r.dir, 'w'));
    expect(bad.code).not.toBe(0);
    expect(bad.stdout).toBe('::error title=Publish to sites failed::remove-preview must be true or false, not "yes"\n');
    const nameless = await runAction({ url: svc.url, key: previewKey, site: SITE, 'remove-preview': 'true' }, { PATH: process.env.PATH ?? '', HOME: r.dir, RUNNER_TEMP: join(r.dir, 'w') }, join(r.dir, 'w'));
    expect(nameless.stdout).toBe('::error title=Publish to sites failed::remove-preview: true needs the preview input (the name to remove)\n');
  });
});

describe('the GitLab merge-request preview jobs', () => {
  function bash(script: string, cwd: string, env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
    return new Promise((done) => {
      execFile('bash', ['-e', '-c', script], { cwd, env: { PATH: process.env.PATH ?? '', HOME: cwd, LANG: 'C.UTF-8', ...env }, timeout: 60_000 }, (err, stdout, stderr) => {
        done({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
      });
    });
  }

  /** The job's `variables` expanded from the predefined ones, its `script` lines as one bash -e script, in an empty folder. */
  async function gitlabJob(name: string, predefined: Record<string, string>, built?: Record<string, string>) {
    const jobs = parseYaml(await readFile(join(ROOT, 'deploy', 'gitlab-ci-preview.yml'), 'utf8')) as Map;
    const job = jobs[name] as Map;
    const dir = join(work, `gitlab-${++runs}`);
    await mkdir(dir, { recursive: true });
    const vars: Record<string, string> = { ...predefined };
    for (const [k, v] of Object.entries(job.variables as Map)) vars[k] = String(v).replace(/\$\{?(\w+)\}?/g, (_, n: string) => predefined[n] ?? '');
    for (const [file, body] of Object.entries(built ?? {})) {
      await mkdir(join(dir, vars.SITE_DIR!, file, '..'), { recursive: true });
      await writeFile(join(dir, vars.SITE_DIR!, file), body);
    }
    const r = await bash((job.script as string[]).join('\n'), dir, vars);
    return { ...r, dir, job };
  }

  it('publishes the merge request’s preview into a review environment, updates it, and its on_stop job removes it', async () => {
    const predefined = { CI_PROJECT_NAME: 'my-project', CI_MERGE_REQUEST_IID: '12', CI_MERGE_REQUEST_TITLE: 'Reword the about page', SITES_URL: svc.url, SITES_PREVIEW_KEY: previewKey };
    const jobs = parseYaml(await readFile(join(ROOT, 'deploy', 'gitlab-ci-preview.yml'), 'utf8')) as Map;
    const env = (jobs['preview-site'] as Map).environment as Map;
    expect(env).toEqual({ name: 'review/$CI_MERGE_REQUEST_IID', url: '$PREVIEW_URL', on_stop: 'stop-preview', auto_stop_in: '2 weeks' });
    expect(((jobs['stop-preview'] as Map).environment as Map)).toEqual({ name: 'review/$CI_MERGE_REQUEST_IID', action: 'stop' });

    const first = await gitlabJob('preview-site', predefined, { 'index.html': '<h1>live</h1>', 'about.html': '<p>mr</p>' });
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(`published preview mr-12 of ${SITE}: 2 files`);
    expect(first.stdout).toContain('against live: 0 files added, 1 changed, 0 removed\n');
    // The dotenv report GitLab reads the environment's URL from.
    expect(await readFile(join(first.dir, 'preview.env'), 'utf8')).toBe(`PREVIEW_URL=${previewUrl('mr-12')}\n`);
    const pushed = await gitlabJob('preview-site', predefined, { 'index.html': '<h1>live</h1>', 'about.html': '<p>mr, again</p>' });
    expect(pushed.code, pushed.stderr).toBe(0);
    expect((await previews()).find((p) => p.name === 'mr-12')).toMatchObject({ title: 'Reword the about page' });

    const stop = await gitlabJob('stop-preview', predefined);
    expect(stop.stderr).toBe('');
    expect(stop.code).toBe(0);
    expect(stop.stdout).toBe(`removed the preview mr-12 of ${SITE}\n`);
    expect((await previews()).map((p) => p.name)).not.toContain('mr-12');
    // Stopping again (the environment's auto-stop after the preview expired) is no failure.
    const again = await gitlabJob('stop-preview', predefined);
    expect(again).toMatchObject({ code: 0, stdout: `no preview mr-12 of ${SITE} to remove\n` });
  });

  it('a failed publish fails the job (no URL is made up for the environment)', async () => {
    const r = await gitlabJob('preview-site', { CI_PROJECT_NAME: 'not-published', CI_MERGE_REQUEST_IID: '13', SITES_URL: svc.url, SITES_PREVIEW_KEY: previewKey }, { 'index.html': 'x' });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/^sites: publish of the preview mr-13 failed \(403\): /);
  });
});

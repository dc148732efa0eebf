/**
 * The pull-request comment of a preview (client/github.ts) against the local stand-in for
 * GitHub's REST API (test/support/github-standin.ts): one comment per site, found again by its
 * hidden marker and edited in place; someone else's comment carrying the marker is never
 * taken over; what the service and the published folder put in the comment stays inert.
 * The action's whole pull-request life is test/e2e/action-previews.test.ts.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { PreviewResult } from '../../client/deploy.ts';
import { ClientError, ClientUsageError } from '../../client/errors.ts';
import { githubTarget, keepComment, marker, previewComment, removedComment, type GitHubTarget } from '../../client/github.ts';
import { startGitHubStandIn, type GitHubStandIn } from '../support/github-standin.ts';

const BOT = { login: 'github-actions[bot]', type: 'Bot' } as const;
const MALLORY = { login: 'mallory', type: 'User' } as const;
const REPO = 'acme/docs';

let gh: GitHubStandIn;
let work: string;
let pr = 0;

beforeAll(async () => {
  gh = await startGitHubStandIn({ ghs_job: BOT, ghs_fork: 'read-only', ghp_mallory: MALLORY });
  work = await mkdtemp(join(tmpdir(), 'sites-gh-comment-'));
});
afterAll(async () => {
  await gh?.close();
  if (work) await rm(work, { recursive: true, force: true });
});
beforeEach(() => {
  pr++; // each test its own pull request
  gh.requests.length = 0;
});

const target = (token = 'ghs_job'): GitHubTarget => githubTarget({ GITHUB_TOKEN: token, GITHUB_REPOSITORY: REPO, GITHUB_API_URL: gh.apiUrl }, String(pr));

function result(revision: string, pages: string[] = ['https://pr-7--app.docs.example.com/guide/']): PreviewResult {
  return {
    preview: { name: 'pr-7', url: 'https://pr-7--app.docs.example.com/', revision, expires_at: '2026-12-09T19:00:00Z' },
    changes: { added: 1, changed: 2, removed: 0 },
    pages,
  };
}

describe('one comment per site on the pull request', () => {
  it('creates the comment on the first publish and edits that same comment on the next ones', async () => {
    const t = target();
    expect(await keepComment(t, 'docs/app', previewComment({ site: 'docs/app', result: result('r1') }))).toMatchObject({ action: 'created' });
    expect(await keepComment(t, 'docs/app', previewComment({ site: 'docs/app', result: result('r2') }))).toMatchObject({ action: 'updated' });
    expect(await keepComment(t, 'docs/app', previewComment({ site: 'docs/app', result: result('r3') }))).toMatchObject({ action: 'updated' });
    const comments = gh.comments(REPO, pr);
    expect(comments).toHaveLength(1);
    expect(comments[0]!.body.startsWith(marker('docs/app'))).toBe(true);
    expect(comments[0]!.body).toContain('`r3`');
    expect(gh.requests.map((r) => r.method)).toEqual(['GET', 'POST', 'GET', 'PATCH', 'GET', 'PATCH']);
    // The REST API's conventions: the prefix of GITHUB_API_URL kept, the token as a bearer, a User-Agent.
    for (const r of gh.requests) {
      expect(r.path.startsWith('/api/v3/repos/acme/docs/issues/')).toBe(true);
      expect(r.authorization).toBe('Bearer ghs_job');
      expect(r.accept).toBe('application/vnd.github+json');
    }
  });

  it('keeps one comment per site: a second site on the same pull request gets its own', async () => {
    const t = target();
    await keepComment(t, 'docs/app', previewComment({ site: 'docs/app', result: result('r1') }));
    await keepComment(t, 'docs/blog', previewComment({ site: 'docs/blog', result: result('b1') }));
    await keepComment(t, 'docs/app', previewComment({ site: 'docs/app', result: result('r2') }));
    const comments = gh.comments(REPO, pr);
    expect(comments.map((c) => c.body.split('\n')[0])).toEqual([marker('docs/app'), marker('docs/blog')]);
    expect(comments[0]!.body).toContain('`r2`');
  });

  it('finds its comment on a busy pull request, past the first page of 100', async () => {
    for (let i = 0; i < 130; i++) gh.seed(REPO, pr, MALLORY, `review comment ${i}`);
    const t = target();
    await keepComment(t, 'docs/app', previewComment({ site: 'docs/app', result: result('r1') }));
    await keepComment(t, 'docs/app', previewComment({ site: 'docs/app', result: result('r2') }));
    expect(gh.comments(REPO, pr)).toHaveLength(131);
    expect(gh.requests.filter((r) => r.method === 'GET').map((r) => r.query)).toEqual(['?per_page=100&page=1', '?per_page=100&page=2', '?per_page=100&page=1', '?per_page=100&page=2']);
    expect(gh.requests.filter((r) => r.method !== 'GET').map((r) => r.method)).toEqual(['POST', 'PATCH']);
  });

  it('never takes over a comment someone else wrote with the marker in it, and leaves that comment as it was', async () => {
    const planted = gh.seed(REPO, pr, MALLORY, `${marker('docs/app')}\nPreview moved: [click here](https://evil.example/)`);
    const t = target();
    expect(await keepComment(t, 'docs/app', previewComment({ site: 'docs/app', result: result('r1') }))).toMatchObject({ action: 'created' });
    expect(await keepComment(t, 'docs/app', previewComment({ site: 'docs/app', result: result('r2') }))).toMatchObject({ action: 'updated' });
    const comments = gh.comments(REPO, pr);
    expect(comments).toHaveLength(2);
    expect(comments[0]).toEqual(planted);
    expect(comments[1]!.user).toEqual(BOT);
    expect(comments[1]!.body).toContain('`r2`');
    // The second run asked who the token is (a person's marked comment was there), was refused as the
    // job's token, and went straight to the bot's own comment: never a PATCH of Mallory's, which the
    // token could have made.
    expect(gh.requests.slice(-3).map((r) => `${r.method} ${r.path}`)).toEqual([`GET /api/v3/repos/acme/docs/issues/${pr}/comments`, 'GET /api/v3/user', `PATCH /api/v3/repos/acme/docs/issues/comments/${comments[1]!.id}`]);
    expect(gh.requests.filter((r) => r.method === 'PATCH' && r.path.endsWith(`/${planted.id}`))).toEqual([]);
  });

  it('a read-only token (a fork on pull_request) fails with GitHub’s reason, and writes nothing', async () => {
    await expect(keepComment(target('ghs_fork'), 'docs/app', previewComment({ site: 'docs/app', result: result('r1') }))).rejects.toThrow(
      new ClientError(`GitHub answered 403 to commenting on #${pr}: Resource not accessible by integration`),
    );
    await expect(keepComment(target('ghs_nobody'), 'docs/app', 'x')).rejects.toThrow(`GitHub answered 401 to listing the comments of #${pr}: Bad credentials`);
    expect(gh.comments(REPO, pr)).toEqual([]);
  });

  it('an API that stops answering fails the call after the idle timeout instead of hanging the job', async () => {
    const { createServer } = await import('node:http');
    const silent = createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    try {
      const port = (silent.address() as { port: number }).port;
      const t = { ...githubTarget({ GITHUB_TOKEN: 'ghs_job', GITHUB_REPOSITORY: REPO, GITHUB_API_URL: `http://127.0.0.1:${port}` }, '1'), idleTimeoutMs: 300 };
      await expect(keepComment(t, 'docs/app', 'x')).rejects.toThrow(`cannot reach http://127.0.0.1:${port} (ETIMEDOUT)`);
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });

  it('a removal edits the comment to say so, and comments nothing on a pull request that has none', async () => {
    const t = target();
    expect(await keepComment(t, 'docs/app', removedComment('docs/app', 'pr-7'), false)).toEqual({ action: 'none' });
    expect(gh.comments(REPO, pr)).toEqual([]);
    await keepComment(t, 'docs/app', previewComment({ site: 'docs/app', result: result('r1') }));
    expect(await keepComment(t, 'docs/app', removedComment('docs/app', 'pr-7'), false)).toMatchObject({ action: 'updated' });
    expect(gh.comments(REPO, pr).map((c) => c.body)).toEqual([removedComment('docs/app', 'pr-7')]);
  });
});

describe('what the comment says', () => {
  it('the URL, the revision, the counts against live and each changed page as a link', () => {
    const body = previewComment({ site: 'docs/app', commit: '0123456789abcdef0123', result: result('20261125T190000.000000000Z', ['https://pr-7--app.docs.example.com/new/', 'https://pr-7--app.docs.example.com/guide/']) });
    expect(body).toBe(
      [
        '<!-- sites-preview: docs/app -->',
        '### Preview `pr-7` of `docs/app`',
        '',
        '**[`https://pr-7--app.docs.example.com/`](https://pr-7--app.docs.example.com/)**',
        '',
        '| | |',
        '| --- | --- |',
        '| Revision | `20261125T190000.000000000Z` (commit `0123456789ab`) |',
        '| Against live | 1 file added, 2 changed, 0 removed |',
        '| Expires | `2026-12-09T19:00:00Z` (each push renews it) |',
        '',
        'Changed pages:',
        '',
        '- [`/new/`](https://pr-7--app.docs.example.com/new/)',
        '- [`/guide/`](https://pr-7--app.docs.example.com/guide/)',
        '',
      ].join('\n'),
    );
  });

  it('a page named to break out of the link or the code span stays text, and a non-http link goes nowhere', () => {
    const body = previewComment({
      site: 'docs/app',
      result: result('r1', ['https://pr-7--app.docs.example.com/a`](javascript:alert(1))<img src=x>.html', 'javascript:alert(1)']),
    });
    const lines = body.split('\n').filter((l) => l.startsWith('- '));
    expect(lines).toEqual([
      '- [`/a?](javascript:alert(1))<img src=x>.html`](https://pr-7--app.docs.example.com/a`%5D%28javascript:alert%281%29%29%3Cimg%20src=x%3E.html)',
      '- [`javascript:alert(1)`](#)',
    ]);
  });
});

describe('which pull request', () => {
  const env = { GITHUB_TOKEN: 't', GITHUB_REPOSITORY: REPO };

  it('is the one of the event (pull_request and pull_request_target), with its head commit', async () => {
    const event = join(work, 'pull_request.json');
    await writeFile(event, JSON.stringify({ action: 'synchronize', number: 42, pull_request: { number: 42, head: { sha: 'abcdef1234567890' } } }));
    expect(githubTarget({ ...env, GITHUB_EVENT_PATH: event }, undefined)).toMatchObject({ pullRequest: 42, commit: 'abcdef1234567890', repository: REPO });
    expect(githubTarget({ ...env, GITHUB_EVENT_PATH: event }, '9').pullRequest).toBe(9);
    expect(githubTarget({ ...env }, '9').api.href).toBe('https://api.github.com/');
  });

  it('a workflow_run event names no fork’s pull request: --pull-request must say it', async () => {
    const event = join(work, 'workflow_run.json');
    await writeFile(event, JSON.stringify({ workflow_run: { head_sha: 'fedcba9876543210', pull_requests: [] } }));
    expect(() => githubTarget({ ...env, GITHUB_EVENT_PATH: event }, undefined)).toThrow(ClientUsageError);
    expect(githubTarget({ ...env, GITHUB_EVENT_PATH: event }, '42')).toMatchObject({ pullRequest: 42, commit: 'fedcba9876543210' });
  });

  it('refuses a number that is not one, a missing token and a malformed repository', () => {
    for (const bad of ['0', '-1', '42; rm -rf /', '1e3', '']) expect(() => githubTarget(env, bad), bad).toThrow(/is not a pull request number/);
    expect(() => githubTarget({ GITHUB_REPOSITORY: REPO }, '1')).toThrow(/needs a token in GITHUB_TOKEN/);
    expect(() => githubTarget({ GITHUB_TOKEN: 't', GITHUB_REPOSITORY: 'acme/docs/../x' }, '1')).toThrow(/GITHUB_REPOSITORY as OWNER\/REPO/);
  });
});

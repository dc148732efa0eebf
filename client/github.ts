import { readFileSync } from 'node:fs';
import type { PreviewResult } from './deploy.ts';
import { ClientError, ClientUsageError } from './errors.ts';
import { count } from './format.ts';
import { send, type Answer } from './http.ts';

/**
 * The pull-request comment of a preview (spec §14): one comment per site on the pull request,
 * found again by a hidden marker and edited in place on every push, so a pull request with
 * thirty pushes carries one comment that always shows the latest preview. Talks to the REST
 * API at GITHUB_API_URL (GitHub Enterprise sets its own) with the job's token.
 */

export type GitHubTarget = {
  readonly api: URL;
  /** `owner/repo`, from GITHUB_REPOSITORY. */
  readonly repository: string;
  readonly pullRequest: number;
  readonly token: string;
  /** The pull request's head commit, when the event names it (pull_request: head.sha; workflow_run: head_sha). */
  readonly commit?: string;
  /** How long GitHub may stay silent on one call (default 30 s): a hung API must not hang the job. */
  readonly idleTimeoutMs?: number;
};

/** Comments read at most when looking for ours: 30 pages of 100 (a bound, as every request's work is). */
const MAX_PAGES = 30;
const PER_PAGE = 100;

/**
 * Where the comment goes: the pull request from --pull-request, else from the event that
 * started the job (GITHUB_EVENT_PATH: a `pull_request` or `pull_request_target` event).
 * A `workflow_run` event does not name a fork's pull request, so such a workflow passes the
 * number on (deploy/github-preview.yml does, through the build's artifact).
 */
export function githubTarget(env: NodeJS.ProcessEnv, pullRequest: string | undefined): GitHubTarget {
  const token = env.GITHUB_TOKEN;
  if (!token) throw new ClientUsageError('--github-comment needs a token in GITHUB_TOKEN (one that may write pull requests)');
  const repository = env.GITHUB_REPOSITORY ?? '';
  if (!/^[\w.-]+\/[\w.-]+$/.test(repository)) throw new ClientUsageError(`--github-comment needs GITHUB_REPOSITORY as OWNER/REPO (it is ${JSON.stringify(repository)})`);
  let api: URL;
  try {
    api = new URL(env.GITHUB_API_URL || 'https://api.github.com');
  } catch {
    throw new ClientUsageError(`GITHUB_API_URL ${JSON.stringify(env.GITHUB_API_URL)} is not a URL`);
  }
  let number = pullRequest;
  let commit: unknown;
  if (env.GITHUB_EVENT_PATH) {
    type Event = { pull_request?: { number?: unknown; head?: { sha?: unknown } }; number?: unknown; workflow_run?: { head_sha?: unknown } };
    let event: Event;
    try {
      event = JSON.parse(readFileSync(env.GITHUB_EVENT_PATH, 'utf8')) as Event;
    } catch (err) {
      throw new ClientError(`cannot read the event GITHUB_EVENT_PATH names (${(err as Error).message})`);
    }
    const found = event.pull_request?.number ?? event.number;
    if (number === undefined && found !== undefined) number = String(found);
    commit = event.pull_request?.head?.sha ?? event.workflow_run?.head_sha;
  }
  if (number === undefined) throw new ClientUsageError('--github-comment: which pull request? Give --pull-request N (the event that started the job names none)');
  if (!/^[1-9]\d{0,9}$/.test(number)) throw new ClientUsageError(`--pull-request ${JSON.stringify(number)} is not a pull request number`);
  return { api, repository, pullRequest: Number(number), token, ...(typeof commit === 'string' && /^[0-9a-f]{7,64}$/.test(commit) ? { commit } : {}) };
}

/** The hidden first line that marks the comment of one site's preview. */
export const marker = (site: string) => `<!-- sites-preview: ${site} -->`;

/** Text inside a code span: nothing in it may end the span or start markup. */
const code = (text: string) => `\`${text.replace(/[`\u0000-\u001f\u007f]/g, '?')}\``;
/** A URL as a Markdown link target: only http(s), and nothing that could end the target. */
const target = (url: string) => (/^https?:\/\//.test(url) ? url.replace(/[()<>\s\\[\]"']/g, percent) : '#');
/** `%XX` for each byte (encodeURIComponent leaves `(` and `)` as they are). */
const percent = (c: string) => [...Buffer.from(c)].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');

export type CommentFacts = {
  readonly site: string;
  readonly result: PreviewResult;
  /** The commit the preview was built from, when the job knows it. */
  readonly commit?: string;
};

/** The comment of a published preview: its URL, revision, counts against live and the changed pages as links. */
export function previewComment(f: CommentFacts): string {
  const { preview, changes, pages } = f.result;
  const origin = preview.url.replace(/\/+$/, '');
  const pageLinks = pages.map((url) => {
    const shown = url.startsWith(origin) ? url.slice(origin.length) || '/' : url;
    return `- [${code(decodeSafely(shown))}](${target(url)})`;
  });
  return [
    marker(f.site),
    `### Preview ${code(preview.name)} of ${code(f.site)}`,
    '',
    `**[${code(preview.url)}](${target(preview.url)})**`,
    '',
    '| | |',
    '| --- | --- |',
    `| Revision | ${code(preview.revision)}${f.commit ? ` (commit ${code(f.commit.slice(0, 12))})` : ''} |`,
    `| Against live | ${count(changes.added, 'file')} added, ${changes.changed.toLocaleString('en')} changed, ${changes.removed.toLocaleString('en')} removed |`,
    ...(preview.expires_at ? [`| Expires | ${code(preview.expires_at)} (each push renews it) |`] : []),
    '',
    ...(pageLinks.length ? ['Changed pages:', '', ...pageLinks] : ['No page changed.']),
    '',
  ].join('\n');
}

/** What the comment says once the preview is gone. */
export function removedComment(site: string, name: string): string {
  return [marker(site), `### Preview ${code(name)} of ${code(site)}`, '', 'Removed: the pull request was closed.', ''].join('\n');
}

function decodeSafely(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

type Comment = { id: number; body?: string; user?: { login?: string; type?: string } };

async function call(t: GitHubTarget, method: string, path: string, body?: unknown): Promise<Answer> {
  const url = new URL(`${t.api.pathname.replace(/\/+$/, '')}${path}`, t.api);
  const text = body === undefined ? undefined : JSON.stringify(body);
  const headers: Record<string, string> = {
    Accept: 'application/vnd.github+json',
    Authorization: `Bearer ${t.token}`,
    'User-Agent': 'sites-publishing-client',
    'X-GitHub-Api-Version': '2022-11-28',
    ...(text === undefined ? {} : { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(text)) }),
  };
  try {
    return await send(url, method, headers, text, t.idleTimeoutMs ?? 30_000);
  } catch (err) {
    throw new ClientError(`cannot reach ${t.api.origin} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
}

function failure(answer: Answer, what: string): ClientError {
  let reason = answer.statusText;
  try {
    reason = (JSON.parse(answer.text) as { message?: string }).message ?? reason;
  } catch {
    /* not JSON */
  }
  return new ClientError(`GitHub answered ${answer.status} to ${what}: ${reason}`);
}

/**
 * The comments that carry the marker and that this job may take as its own. Anyone can paste
 * the marker into a comment, and a token with write access may edit anyone's comment, so a
 * comment counts only when a bot wrote it (as the job's token does) or the token's own user
 * (a personal token); `GET /user` is asked only when a person's marked comment is there.
 */
async function markedComments(t: GitHubTarget, site: string): Promise<Comment[]> {
  const found: Comment[] = [];
  const prefix = marker(site);
  for (let page = 1; page <= MAX_PAGES; page++) {
    const answer = await call(t, 'GET', `/repos/${t.repository}/issues/${t.pullRequest}/comments?per_page=${PER_PAGE}&page=${page}`);
    if (answer.status !== 200) throw failure(answer, `listing the comments of #${t.pullRequest}`);
    const comments = JSON.parse(answer.text) as Comment[];
    if (!Array.isArray(comments)) throw new ClientError(`GitHub answered the comments of #${t.pullRequest} with something that is not a list`);
    found.push(...comments.filter((c) => typeof c.id === 'number' && typeof c.body === 'string' && c.body.startsWith(prefix)));
    if (comments.length < PER_PAGE) break;
  }
  const self = found.some((c) => c.user?.type !== 'Bot') ? await tokenLogin(t) : undefined;
  return found.filter((c) => c.user?.type === 'Bot' || (self !== undefined && c.user?.login === self));
}

/** The login of the token's user, or undefined for a token that is not a person's (the job's: 403). */
async function tokenLogin(t: GitHubTarget): Promise<string | undefined> {
  const answer = await call(t, 'GET', '/user');
  if (answer.status !== 200) return undefined;
  try {
    const login = (JSON.parse(answer.text) as { login?: unknown }).login;
    return typeof login === 'string' ? login : undefined;
  } catch {
    return undefined;
  }
}

export type CommentOutcome = { readonly action: 'created' | 'updated' | 'none'; readonly url?: string };

/**
 * Edits the site's comment on the pull request, or creates it when there is none (or when
 * none of the marked comments may be edited with this token: someone else's). With
 * `createIfMissing` false (a removal), a pull request without the comment gets none.
 */
export async function keepComment(t: GitHubTarget, site: string, body: string, createIfMissing = true): Promise<CommentOutcome> {
  for (const comment of await markedComments(t, site)) {
    const answer = await call(t, 'PATCH', `/repos/${t.repository}/issues/comments/${comment.id}`, { body });
    if (answer.status === 200) return { action: 'updated', url: htmlUrl(answer) };
    // Refused (403), or deleted meanwhile (404): try the next one, then make our own.
    if (answer.status !== 403 && answer.status !== 404) throw failure(answer, `editing comment ${comment.id}`);
  }
  if (!createIfMissing) return { action: 'none' };
  const answer = await call(t, 'POST', `/repos/${t.repository}/issues/${t.pullRequest}/comments`, { body });
  if (answer.status !== 201) throw failure(answer, `commenting on #${t.pullRequest}`);
  return { action: 'created', url: htmlUrl(answer) };
}

function htmlUrl(answer: Answer): string | undefined {
  try {
    const url = (JSON.parse(answer.text) as { html_url?: unknown }).html_url;
    return typeof url === 'string' ? url : undefined;
  } catch {
    return undefined;
  }
}

import { createServer, type IncomingMessage, type Server } from 'node:http';

/**
 * A local stand-in for the part of GitHub's REST API a preview job uses (the real one is
 * unreachable from the tests): the comments of an issue or pull request, listed page by page,
 * created and edited, under a path prefix as on GitHub Enterprise (`…/api/v3`). A real HTTP
 * server that records every request, so a test can say exactly what the action sent.
 *
 * Tokens stand for identities: each maps to the user it acts as (a Bot for the job's token),
 * or to `read-only` (what a pull request from a fork gets on `pull_request`: writes answer 403
 * "Resource not accessible by integration"). An unknown token answers 401. A token with write
 * access edits anyone's comment, as on GitHub (so the client must choose which to edit);
 * `GET /user` answers a person's token and refuses the job's (a Bot), as GitHub does.
 */

export type GitHubUser = { login: string; type: 'Bot' | 'User' };
export type StoredComment = { id: number; body: string; user: GitHubUser; html_url: string };
export type Recorded = { method: string; path: string; query: string; authorization?: string; accept?: string; userAgent?: string; body?: unknown };

export type GitHubStandIn = {
  /** What GITHUB_API_URL is set to: `http://127.0.0.1:PORT/api/v3`. */
  readonly apiUrl: string;
  readonly requests: Recorded[];
  /** The comments of `owner/repo#number`, oldest first. */
  comments(repository: string, number: number): StoredComment[];
  /** Sets what `GET /repos/{repo}/pulls/{number}` answers: the pull request's state and head commit. */
  setPull(repository: string, number: number, pull: { state: 'open' | 'closed'; headSha: string }): void;
  /** Adds a comment as `user` (someone else's comment, seeded by a test). */
  seed(repository: string, number: number, user: GitHubUser, body: string): StoredComment;
  close(): Promise<void>;
};

const PREFIX = '/api/v3';

export async function startGitHubStandIn(tokens: Record<string, GitHubUser | 'read-only'>): Promise<GitHubStandIn> {
  const threads = new Map<string, StoredComment[]>();
  const byId = new Map<number, StoredComment>();
  const requests: Recorded[] = [];
  const pulls = new Map<string, { state: string; headSha: string }>();
  let nextId = 1000;
  let origin = '';
  const thread = (repo: string, n: number) => {
    const key = `${repo}#${n}`;
    if (!threads.has(key)) threads.set(key, []);
    return threads.get(key)!;
  };
  const add = (repo: string, n: number, user: GitHubUser, body: string): StoredComment => {
    const c = { id: nextId++, body, user, html_url: `${origin}/${repo}/pull/${n}#issuecomment-${nextId - 1}` };
    thread(repo, n).push(c);
    byId.set(c.id, c);
    return c;
  };

  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://standin');
    const text = await readBody(req);
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = text;
    }
    requests.push({ method: req.method ?? '', path: url.pathname, query: url.search, authorization: req.headers.authorization, accept: req.headers.accept, userAgent: req.headers['user-agent'], body });
    const send = (status: number, payload: unknown) => {
      res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify(payload));
    };
    if (!url.pathname.startsWith(`${PREFIX}/`)) return send(404, { message: 'Not Found' });
    const path = url.pathname.slice(PREFIX.length);
    if (!req.headers['user-agent']) return send(403, { message: 'Request forbidden by administrative rules. Please make sure your request has a User-Agent header' });
    const token = /^(?:Bearer|token) (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const who = token ? tokens[token] : undefined;
    if (!who) return send(401, { message: 'Bad credentials' });

    if (path === '/user' && req.method === 'GET') {
      if (who === 'read-only' || who.type === 'Bot') return send(403, { message: 'Resource not accessible by integration' });
      return send(200, { login: who.login, type: who.type });
    }
    const pull = /^\/repos\/([\w.-]+\/[\w.-]+)\/pulls\/(\d+)$/.exec(path);
    if (pull && req.method === 'GET') {
      const p = pulls.get(`${pull[1]}#${pull[2]}`);
      if (!p) return send(404, { message: 'Not Found' });
      return send(200, { number: Number(pull[2]), state: p.state, head: { sha: p.headSha } });
    }
    let m = /^\/repos\/([\w.-]+\/[\w.-]+)\/issues\/(\d+)\/comments$/.exec(path);
    if (m && req.method === 'GET') {
      const perPage = Math.min(100, Number(url.searchParams.get('per_page') ?? 30));
      const page = Math.max(1, Number(url.searchParams.get('page') ?? 1));
      return send(200, thread(m[1]!, Number(m[2])).slice((page - 1) * perPage, page * perPage));
    }
    if (m && req.method === 'POST') {
      if (who === 'read-only') return send(403, { message: 'Resource not accessible by integration' });
      const b = body as { body?: unknown };
      if (typeof b?.body !== 'string') return send(422, { message: 'Invalid request: body is required' });
      return send(201, add(m[1]!, Number(m[2]), who, b.body));
    }
    m = /^\/repos\/([\w.-]+\/[\w.-]+)\/issues\/comments\/(\d+)$/.exec(path);
    if (m && req.method === 'PATCH') {
      const c = byId.get(Number(m[2]));
      if (!c) return send(404, { message: 'Not Found' });
      if (who === 'read-only') return send(403, { message: 'Resource not accessible by integration' });
      const b = body as { body?: unknown };
      if (typeof b?.body !== 'string') return send(422, { message: 'Invalid request: body is required' });
      c.body = b.body;
      return send(200, c);
    }
    return send(404, { message: 'Not Found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address !== 'object') throw new Error('no address');
  origin = `http://127.0.0.1:${address.port}`;
  return {
    apiUrl: `${origin}${PREFIX}`,
    requests,
    comments: (repo, n) => [...thread(repo, n)],
    setPull: (repo, n, p) => void pulls.set(`${repo}#${n}`, p),
    seed: (repo, n, user, body) => add(repo, n, user, body),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

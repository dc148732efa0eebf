/**
 * The upstream client: lazy SSO login, silent refresh, one retry after a
 * `401 NotAuthenticated`, and coalesced logins. One instance is shared by every
 * MCP server instance of the process, so per-request servers never log in again.
 */
import { createJar, dropCookie, getCookie } from './jar.ts';
import { follow, send, type HttpResponse } from './http.ts';
import { CREDENTIALS_REJECTED, httpError, STILL_UNAUTHENTICATED, UpstreamError } from './errors.ts';
import { csrfTokenFromPlaySession, isNotAuthenticated } from './login-token.ts';

/** Where the diary lives and who logs in. */
export type UpstreamConfig = {
  baseUrl: string;
  authUrl: string;
  email: string;
  password: string;
  timeoutMs: number;
};

/** One data call. `auth: false` needs no login (the sport catalogue). */
export type Call = {
  action: string;
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  body?: unknown;
  auth?: boolean;
};

/** A data call's answer; every status comes back, the caller decides what it means. */
export type Reply = { status: number; text: string };

/** The process-wide upstream client. */
export type Upstream = { call(c: Call): Promise<Reply> };

const LOGIN = 'Diary login';

/** Builds the client; nothing is sent until the first call. */
export function createUpstream(cfg: UpstreamConfig): Upstream {
  const jar = createJar();
  const flow = new URL(cfg.baseUrl).origin;
  const auth = new URL(cfg.authUrl).origin;
  const t = cfg.timeoutMs;
  let inFlight: Promise<void> | undefined;
  let generation = 0;

  const loggedIn = (): boolean => !!getCookie(jar, flow, 'FLOW_SESSION');

  const checkLeg = (res: HttpResponse): void => {
    if (res.status >= 400) throw httpError(LOGIN, res.status, res.text);
  };

  async function ssoLeg(csrf: string): Promise<void> {
    const url = `${cfg.baseUrl}/flowSso/login?csrfToken=${encodeURIComponent(csrf)}&returnUrl=%2F`;
    checkLeg(await follow(jar, { method: 'GET', url, accept: 'text/html' }, t, LOGIN));
  }

  async function fullLogin(): Promise<void> {
    checkLeg(await follow(jar, { method: 'GET', url: `${cfg.baseUrl}/login`, accept: 'text/html' }, t, LOGIN));
    const csrf = csrfTokenFromPlaySession(getCookie(jar, flow, 'PLAY_SESSION_FLOW'));
    if (!csrf) throw new UpstreamError(`${LOGIN} failed: could not start login (no csrfToken in PLAY_SESSION_FLOW).`);
    await ssoLeg(csrf);
    if (loggedIn()) return; // the SSO login was still alive
    const xsrf = getCookie(jar, auth, 'XSRF-TOKEN');
    if (!xsrf) throw new UpstreamError(`${LOGIN} failed: the sign-in page set no XSRF-TOKEN cookie.`);
    const form = new URLSearchParams({ _csrf: xsrf, username: cfg.email, password: cfg.password, 'remember-me': 'on' });
    const res = await follow(
      jar,
      {
        method: 'POST',
        url: `${cfg.authUrl}/login`,
        accept: 'text/html',
        contentType: 'application/x-www-form-urlencoded',
        body: form.toString(),
        headers: { Origin: auth, Referer: `${cfg.authUrl}/login` },
      },
      t,
      LOGIN,
    );
    if (res.status >= 500) checkLeg(res);
    // The only reliable success signal is a FLOW_SESSION in the jar.
    if (!loggedIn()) throw new UpstreamError(CREDENTIALS_REJECTED);
  }

  async function establish(refresh: boolean): Promise<void> {
    dropCookie(jar, flow, 'FLOW_SESSION');
    const csrf = csrfTokenFromPlaySession(getCookie(jar, flow, 'PLAY_SESSION_FLOW'));
    if (refresh && csrf) {
      try {
        await ssoLeg(csrf);
      } catch (err) {
        // A refresh that errs out is retried as a full login; network trouble will resurface there.
        if (!(err instanceof UpstreamError)) throw err;
      }
      if (loggedIn()) return;
    }
    await fullLogin();
  }

  /** Coalesced: concurrent callers share one login; a caller whose login was already replaced skips it. */
  async function login(refresh: boolean, seenGeneration?: number): Promise<void> {
    if (seenGeneration !== undefined && seenGeneration !== generation && loggedIn()) return;
    inFlight ??= establish(refresh)
      .then(() => {
        generation++;
      })
      .finally(() => {
        inFlight = undefined;
      });
    await inFlight;
  }

  async function once(c: Call): Promise<Reply> {
    const res = await send(
      jar,
      {
        method: c.method,
        url: `${cfg.baseUrl}${c.path}`,
        body: c.body === undefined ? undefined : JSON.stringify(c.body),
        contentType: c.body === undefined ? undefined : 'application/json',
      },
      t,
      c.action,
    );
    if (res.status >= 300 && res.status < 400) {
      // Data endpoints do not redirect; a bounce to a login page means the login is gone.
      if (res.location && new URL(res.location, res.url).pathname.endsWith('/login')) {
        return { status: 401, text: '{"error":"NotAuthenticated"}' };
      }
      throw new UpstreamError(`${c.action} failed: unexpected redirect (HTTP ${res.status}) to ${res.location ?? '?'}`);
    }
    return { status: res.status, text: res.text };
  }

  return {
    async call(c) {
      if (c.auth === false) return once(c);
      if (!loggedIn()) await login(false);
      const seen = generation;
      const first = await once(c);
      if (!isNotAuthenticated(first.status, first.text)) return first;
      await login(true, seen);
      const second = await once(c);
      if (isNotAuthenticated(second.status, second.text)) throw new UpstreamError(STILL_UNAUTHENTICATED);
      return second;
    },
  };
}

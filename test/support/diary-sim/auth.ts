/**
 * The login chain across the two hosts: flow `/login` (PLAY_SESSION_FLOW JWT
 * with a csrfToken), `/flowSso/login` → auth `/oauth/authorize` → auth `/login`
 * (XSRF-TOKEN), the credential POST, and back through `/flowSso/redirect` where
 * FLOW_SESSION is issued.
 */
import { randomBytes } from 'node:crypto';
import { cookie, html, plain, redirect, type Origins, type SimRequest, type SimResponse } from './http.ts';
import { nowMs, type SimState } from './state.ts';

const rnd = (): string => randomBytes(12).toString('hex');
const b64 = (v: unknown): string => Buffer.from(JSON.stringify(v)).toString('base64url');

/** An unsigned three-segment token, like the framework's session cookie. */
const jwt = (payload: unknown): string => `${b64({ alg: 'none', typ: 'JWT' })}.${b64(payload)}.${rnd()}`;

function csrfOf(playSession: string | undefined): string | undefined {
  try {
    const p = JSON.parse(Buffer.from(String(playSession).split('.')[1], 'base64url').toString()) as { data?: { csrfToken?: string } };
    return p.data?.csrfToken;
  } catch {
    return undefined;
  }
}

/** True when the request carries a live FLOW_SESSION. */
export function hasFlowSession(s: SimState, req: SimRequest): boolean {
  const exp = s.flowSessions.get(req.cookies.FLOW_SESSION ?? '');
  return exp !== undefined && exp > nowMs(s);
}

const authorizeUrl = (o: Origins, state: string): string =>
  `${o.auth}/oauth/authorize?client_id=flow&response_type=code&redirect_uri=${encodeURIComponent(`${o.flow}/flowSso/redirect`)}&state=${state}`;

const LOGIN_PAGE = '<!doctype html><html><body><div id="app">Sign in</div><script src="/app.js"></script></body></html>';

/** Flow-host login routes; undefined when the path is not one of them. */
export function flowLogin(s: SimState, o: Origins, req: SimRequest): SimResponse | undefined {
  if (req.method === 'GET' && req.path === '/login') {
    const token = rnd();
    s.csrfTokens.add(token);
    return { ...html(200, '<!doctype html><html><body>Polar Flow</body></html>'), setCookies: [cookie('PLAY_SESSION_FLOW', jwt({ data: { csrfToken: token } }))] };
  }
  if (req.method === 'GET' && req.path === '/flowSso/login') {
    const token = req.query.get('csrfToken') ?? '';
    if (!s.csrfTokens.has(token) || csrfOf(req.cookies.PLAY_SESSION_FLOW) !== token) return plain(403, 'Invalid csrfToken');
    return redirect(authorizeUrl(o, rnd()));
  }
  if (req.method === 'GET' && req.path === '/flowSso/redirect') {
    const code = req.query.get('code') ?? '';
    if (!s.codes.delete(code)) return plain(400, 'invalid code');
    const session = jwt({ sub: s.account.userId, n: rnd() });
    s.flowSessions.set(session, nowMs(s) + s.sessionTtlS * 1000);
    return redirect(`${o.flow}/`, [cookie('FLOW_SESSION', session, 100 * 86400)]);
  }
  if (req.method === 'GET' && req.path === '/') return html(200, '<!doctype html><html><body>Diary</body></html>');
  return undefined;
}

/** Auth-host routes (authorize, the sign-in page and the credential POST). */
export function authHost(s: SimState, o: Origins, req: SimRequest): SimResponse {
  const signedIn = [req.cookies.session_id, req.cookies['remember-me']].some((v) => v !== undefined && s.authSessions.has(v));
  if (req.method === 'GET' && req.path === '/oauth/authorize') {
    if (signedIn) {
      const code = rnd();
      s.codes.add(code);
      return redirect(`${o.flow}/flowSso/redirect?code=${code}&state=${req.query.get('state') ?? ''}`);
    }
    return redirect(`${o.auth}/login`, [cookie('AUTH_CONTINUE', req.query.get('state') ?? '')]);
  }
  if (req.method === 'GET' && req.path === '/login') {
    const existing = req.cookies['XSRF-TOKEN'];
    if (existing && s.xsrfTokens.has(existing)) return html(200, LOGIN_PAGE);
    const token = rnd();
    s.xsrfTokens.add(token);
    return { ...html(200, LOGIN_PAGE), setCookies: [cookie('XSRF-TOKEN', token)] };
  }
  if (req.method === 'POST' && req.path === '/login') {
    const form = new URLSearchParams(req.body);
    const xsrf = req.cookies['XSRF-TOKEN'];
    if (!xsrf || form.get('_csrf') !== xsrf || !s.xsrfTokens.has(xsrf)) return plain(403, 'Invalid CSRF token');
    const ok = !s.rejectLogins && form.get('username') === s.account.email && form.get('password') === s.account.password;
    if (!ok) return html(200, LOGIN_PAGE); // the sign-in page again, no redirect
    const sid = rnd();
    const remember = rnd();
    s.authSessions.add(sid).add(remember);
    return redirect(`${authorizeUrl(o, req.cookies.AUTH_CONTINUE ?? rnd())}&continue`, [
      cookie('session_id', sid),
      cookie('remember-me', remember, 14 * 86400),
    ]);
  }
  return html(404, 'Not found');
}

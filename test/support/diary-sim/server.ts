/**
 * The simulated upstream diary: two HTTP listeners (flow and auth) over one
 * in-memory state, a request log, and fault injection (upstream spec §8).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { authHost, flowLogin, hasFlowSession } from './auth.ts';
import { dataRoute } from './data.ts';
import { html, json, NOT_AUTHENTICATED, parseCookies, plain, type Origins, type SimRequest, type SimResponse } from './http.ts';
import { createState, seedDeviceSession, type SimState, type StoredSession } from './state.ts';

/** One recorded request (cookie names only, never values). */
export type LogEntry = {
  host: 'flow' | 'auth';
  method: string;
  path: string;
  query: string;
  xrw?: string;
  contentType?: string;
  cookieNames: string[];
  body: string;
  /** Status answered (absent for dropped connections). */
  status?: number;
};

/** What a fault applies to: method (any when absent), path (exact string or pattern), host (flow by default). */
export type FaultMatch = { method?: string; path: string | RegExp; host?: 'flow' | 'auth' };

type Effect =
  | { kind: 'fail'; status: number; body: string; contentType: string }
  | { kind: 'drop' }
  | { kind: 'delay'; ms: number }
  | { kind: 'always401' };

type Fault = FaultMatch & { times: number; effect: Effect };

/** Options of {@link startSimulator}. */
export type SimOptions = { flowPort?: number; authPort?: number; host?: string };

/** The running simulator and its control surface. */
export type DiarySim = {
  flowUrl: string;
  authUrl: string;
  state: SimState;
  log: LogEntry[];
  /** Env vars pointing the diary server at this simulator with the demo account. */
  env(): Record<string, string>;
  expireSessions(): void;
  expireAll(): void;
  setPassword(p: string): void;
  rejectLogins(on: boolean): void;
  always401(m: FaultMatch, times?: number): void;
  failWith(m: FaultMatch, status: number, body?: string, contentType?: string, times?: number): void;
  dropConnection(m: FaultMatch, times?: number): void;
  delay(m: FaultMatch, ms: number, times?: number): void;
  deleteMissing(mode: '200' | '400'): void;
  weekSummaryShape(mode: 'auto' | 'empty-objects' | 'empty-array'): void;
  contentFilter(word: string | undefined): void;
  setNow(t: number | Date | undefined): void;
  seedDeviceSession(day: string, id?: number): StoredSession;
  clearFaults(): void;
  /** Fresh state (no data, no faults, no sessions) and an empty log. */
  reset(): void;
  close(): Promise<void>;
};

const PUBLIC_PATHS = new Set(['/api/sports/sports']);
const LOGIN_PATHS = new Set(['/login', '/flowSso/login', '/flowSso/redirect', '/']);

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function write(res: ServerResponse, r: SimResponse): void {
  const headers: Record<string, string | string[]> = {};
  if (r.contentType) headers['Content-Type'] = r.contentType;
  if (r.location) headers.Location = r.location;
  if (r.setCookies?.length) headers['Set-Cookie'] = r.setCookies;
  res.writeHead(r.status, headers);
  res.end(r.body ?? '');
}

function sports(): SimResponse {
  return json(200, { 1: 'RUNNING', 2: 'CYCLING', 11: 'HIKING', 15: 'STRENGTH_TRAINING', 23: 'SWIMMING', 57: 'FUNCTIONAL_TRAINING', 68: 'TRIATHLON', 103: 'POOL_SWIMMING' });
}

function flowHost(s: SimState, o: Origins, req: SimRequest, forced401: boolean): SimResponse {
  const login = LOGIN_PATHS.has(req.path) ? flowLogin(s, o, req) : undefined;
  if (login) return login;
  if (req.method === 'GET' && PUBLIC_PATHS.has(req.path)) return sports();
  // The flow host refuses non-GET data requests without X-Requested-With with an HTML page.
  if (req.method !== 'GET' && req.headers['x-requested-with'] !== 'XMLHttpRequest') {
    return html(403, '<html><body><h1>Unauthorized</h1></body></html>');
  }
  if (forced401 || !hasFlowSession(s, req)) return NOT_AUTHENTICATED;
  return dataRoute(s, req) ?? plain(404, 'Not found');
}

const listen = (srv: Server, port: number, host: string): Promise<number> =>
  new Promise((resolve, reject) => {
    srv.once('error', reject);
    srv.listen(port, host, () => resolve((srv.address() as AddressInfo).port));
  });

/** Starts both listeners (ephemeral ports unless given). */
export async function startSimulator(opts: SimOptions = {}): Promise<DiarySim> {
  const host = opts.host ?? '127.0.0.1';
  let state = createState();
  const log: LogEntry[] = [];
  let faults: Fault[] = [];
  const origins: Origins = { flow: '', auth: '' };

  const takeFault = (r: SimRequest): Fault | undefined => {
    const f = faults.find(
      (x) =>
        x.times > 0 &&
        (x.host ?? 'flow') === r.host &&
        (!x.method || x.method.toUpperCase() === r.method) &&
        (typeof x.path === 'string' ? x.path === r.path : x.path.test(r.path)),
    );
    if (f) f.times--;
    return f;
  };

  const handler = (which: 'flow' | 'auth') => async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://sim');
    const body = await readBody(req);
    const cookies = parseCookies(req.headers.cookie);
    const r: SimRequest = { host: which, method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers, cookies, body };
    const entry: LogEntry = {
      host: which, method: r.method, path: r.path, query: url.search,
      xrw: req.headers['x-requested-with'] as string | undefined, contentType: req.headers['content-type'],
      cookieNames: Object.keys(cookies), body,
    };
    log.push(entry);
    res.once('finish', () => {
      entry.status = res.statusCode;
    });
    const fault = takeFault(r);
    if (fault?.effect.kind === 'drop') {
      req.socket.destroy();
      return;
    }
    if (fault?.effect.kind === 'delay') {
      const ms = fault.effect.ms;
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, ms);
        res.once('close', () => {
          clearTimeout(t);
          resolve();
        });
      });
      if (res.destroyed || res.writableEnded) return;
    }
    if (fault?.effect.kind === 'fail') {
      write(res, { status: fault.effect.status, contentType: fault.effect.contentType, body: fault.effect.body });
      return;
    }
    const forced401 = fault?.effect.kind === 'always401';
    write(res, which === 'flow' ? flowHost(state, origins, r, forced401) : authHost(state, origins, r));
  };

  const flowSrv = createServer((q, s) => void handler('flow')(q, s));
  const authSrv = createServer((q, s) => void handler('auth')(q, s));
  const flowPort = await listen(flowSrv, opts.flowPort ?? 0, host);
  const authPort = await listen(authSrv, opts.authPort ?? 0, host);
  origins.flow = `http://${host}:${flowPort}`;
  origins.auth = `http://${host}:${authPort}`;
  const add = (m: FaultMatch, times: number, effect: Effect): void => {
    faults.push({ ...m, times, effect });
  };

  return {
    flowUrl: origins.flow,
    authUrl: origins.auth,
    get state() {
      return state;
    },
    log,
    env: () => ({
      DIARY_BASE_URL: origins.flow,
      DIARY_AUTH_URL: origins.auth,
      DIARY_EMAIL: state.account.email,
      DIARY_PASSWORD: state.account.password,
    }),
    expireSessions: () => state.flowSessions.clear(),
    expireAll: () => {
      state.flowSessions.clear();
      state.authSessions.clear();
    },
    setPassword: (p) => {
      state.account.password = p;
    },
    rejectLogins: (on) => {
      state.rejectLogins = on;
    },
    always401: (m, times = Number.POSITIVE_INFINITY) => add(m, times, { kind: 'always401' }),
    failWith: (m, status, body = '', contentType = 'text/plain', times = 1) => add(m, times, { kind: 'fail', status, body, contentType }),
    dropConnection: (m, times = 1) => add(m, times, { kind: 'drop' }),
    delay: (m, ms, times = 1) => add(m, times, { kind: 'delay', ms }),
    deleteMissing: (mode) => {
      state.deleteMissing = mode;
    },
    weekSummaryShape: (mode) => {
      state.weekSummaryShape = mode;
    },
    contentFilter: (word) => {
      state.contentFilterWord = word;
    },
    setNow: (t) => {
      state.now = t === undefined ? undefined : typeof t === 'number' ? t : t.getTime();
    },
    seedDeviceSession: (day, id) => seedDeviceSession(state, day, id),
    clearFaults: () => {
      faults = [];
    },
    reset: () => {
      state = createState();
      faults = [];
      log.length = 0;
    },
    close: async () => {
      flowSrv.closeAllConnections();
      authSrv.closeAllConnections();
      await Promise.all([new Promise((r) => flowSrv.close(r)), new Promise((r) => authSrv.close(r))]);
    },
  };
}

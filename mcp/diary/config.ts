/** Start-up configuration from the environment and the command line. */
import { HTTP_DEFAULTS, type HttpOptions } from './http.ts';
import type { UpstreamConfig } from './upstream/client.ts';

/** Where to serve: stdio unless an HTTP address is given. */
export type Listen = { kind: 'stdio' } | { kind: 'http'; host: string; port: number };

/** Everything main.ts needs. */
export type Config = { upstream: UpstreamConfig; listen: Listen; http: HttpOptions };

const trimSlash = (u: string): string => u.replace(/\/+$/, '');

function httpAddr(argv: string[], env: NodeJS.ProcessEnv): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--http') return argv[i + 1] ?? '';
    if (argv[i].startsWith('--http=')) return argv[i].slice('--http='.length);
  }
  return env.DIARY_HTTP_ADDR || undefined;
}

function parseAddr(addr: string): Listen | string {
  const m = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(addr);
  if (!m || Number(m[2]) > 65535) return `diary: --http / DIARY_HTTP_ADDR must be HOST:PORT (got ${JSON.stringify(addr)})`;
  return { kind: 'http', host: m[1].replace(/^\[|\]$/g, ''), port: Number(m[2]) };
}

// setTimeout's ceiling: a longer delay silently fires after 1 ms instead.
const MAX_TIMER_MS = 2 ** 31 - 1;

/** A whole number in 1..max from the environment, the default when unset or empty. */
function wholeNumber(env: NodeJS.ProcessEnv, name: string, what: string, fallback: number, max: number): number | string {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const n = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!(n >= 1 && n <= max)) return `diary: ${name} must be a whole number of ${what} from 1 to ${max} (got ${JSON.stringify(env[name])})`;
  return n;
}

/** One `DIARY_ALLOWED_HOSTS` entry as the host name the Host check compares, or undefined when it is not one. */
function hostName(entry: string): string | undefined {
  // Anything but a name, an IP address and a port (scheme, path, user, wildcard) is refused:
  // the check compares names exactly, so `*.lan` or `http://x` would silently match nothing.
  if (/[/?#@*\s]/.test(entry) || !URL.canParse(`http://${entry}`)) return undefined;
  const { hostname } = new URL(`http://${entry}`);
  return /^[a-z0-9.-]+$|^\[[0-9a-f:.]+\]$/.test(hostname) ? hostname : undefined;
}

/** `DIARY_ALLOWED_HOSTS`: comma-separated names, each with an optional port (ignored, as loopback's any port is). */
function allowedHosts(raw: string | undefined): string[] | string {
  const names: string[] = [];
  for (const entry of (raw ?? '').split(',').map((e) => e.trim()).filter(Boolean)) {
    const name = hostName(entry);
    if (!name) return `diary: DIARY_ALLOWED_HOSTS must be comma-separated host names or IP addresses, port optional, IPv6 in brackets (got ${JSON.stringify(entry)})`;
    names.push(name);
  }
  return names;
}

/** The HTTP guard settings (read in stdio mode too, so a typo fails whichever way the server starts). */
function httpOptions(env: NodeJS.ProcessEnv): HttpOptions | string {
  const hosts = allowedHosts(env.DIARY_ALLOWED_HOSTS);
  if (typeof hosts === 'string') return hosts;
  const idleMs = wholeNumber(env, 'DIARY_SESSION_IDLE_TIMEOUT_MS', 'milliseconds', HTTP_DEFAULTS.idleMs, MAX_TIMER_MS);
  if (typeof idleMs === 'string') return idleMs;
  const maxSessions = wholeNumber(env, 'DIARY_MAX_SESSIONS', 'sessions', HTTP_DEFAULTS.maxSessions, 100_000);
  if (typeof maxSessions === 'string') return maxSessions;
  return { allowedHosts: hosts, idleMs, maxSessions };
}

/** Reads the configuration; a string is the one-line error to print before exiting. */
export function readConfig(argv: string[], env: NodeJS.ProcessEnv): Config | string {
  const missing = ['DIARY_EMAIL', 'DIARY_PASSWORD'].filter((k) => !env[k]);
  if (missing.length) {
    return `diary: missing required environment variable${missing.length > 1 ? 's' : ''} ${missing.join(' and ')} (the diary account to act as)`;
  }
  const timeout = wholeNumber(env, 'DIARY_HTTP_TIMEOUT_MS', 'milliseconds', 30_000, MAX_TIMER_MS);
  if (typeof timeout === 'string') return timeout;
  const baseUrl = trimSlash(env.DIARY_BASE_URL || 'https://flow.polar.com');
  const authUrl = trimSlash(env.DIARY_AUTH_URL || 'https://auth.polar.com');
  for (const [k, v] of [['DIARY_BASE_URL', baseUrl], ['DIARY_AUTH_URL', authUrl]] as const) {
    if (!URL.canParse(v)) return `diary: ${k} is not a URL: ${JSON.stringify(v)}`;
  }
  const addr = httpAddr(argv, env);
  const listen = addr === undefined ? ({ kind: 'stdio' } as const) : parseAddr(addr);
  if (typeof listen === 'string') return listen;
  const http = httpOptions(env);
  if (typeof http === 'string') return http;
  return {
    upstream: { baseUrl, authUrl, email: env.DIARY_EMAIL!, password: env.DIARY_PASSWORD!, timeoutMs: timeout },
    listen,
    http,
  };
}

/** Loopback hosts; anything else gets a warning because the server has no client authentication. */
export const isLoopback = (host: string): boolean => host === 'localhost' || host === '::1' || /^127\./.test(host);

/** Start-up configuration from the environment and the command line. */
import type { UpstreamConfig } from './upstream/session.ts';

/** Where to serve: stdio unless an HTTP address is given. */
export type Listen = { kind: 'stdio' } | { kind: 'http'; host: string; port: number };

/** Everything main.ts needs. */
export type Config = { upstream: UpstreamConfig; listen: Listen };

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

/** Reads the configuration; a string is the one-line error to print before exiting. */
export function readConfig(argv: string[], env: NodeJS.ProcessEnv): Config | string {
  const missing = ['DIARY_EMAIL', 'DIARY_PASSWORD'].filter((k) => !env[k]);
  if (missing.length) {
    return `diary: missing required environment variable${missing.length > 1 ? 's' : ''} ${missing.join(' and ')} (the diary account to act as)`;
  }
  const timeout = env.DIARY_HTTP_TIMEOUT_MS ? Number(env.DIARY_HTTP_TIMEOUT_MS) : 30_000;
  if (!Number.isInteger(timeout) || timeout <= 0) return 'diary: DIARY_HTTP_TIMEOUT_MS must be a positive whole number of milliseconds';
  const baseUrl = trimSlash(env.DIARY_BASE_URL || 'https://flow.polar.com');
  const authUrl = trimSlash(env.DIARY_AUTH_URL || 'https://auth.polar.com');
  for (const [k, v] of [['DIARY_BASE_URL', baseUrl], ['DIARY_AUTH_URL', authUrl]] as const) {
    if (!URL.canParse(v)) return `diary: ${k} is not a URL: ${JSON.stringify(v)}`;
  }
  const addr = httpAddr(argv, env);
  const listen = addr === undefined ? ({ kind: 'stdio' } as const) : parseAddr(addr);
  if (typeof listen === 'string') return listen;
  return {
    upstream: { baseUrl, authUrl, email: env.DIARY_EMAIL!, password: env.DIARY_PASSWORD!, timeoutMs: timeout },
    listen,
  };
}

/** Loopback hosts; anything else gets a warning because the server has no client authentication. */
export const isLoopback = (host: string): boolean => host === 'localhost' || host === '::1' || /^127\./.test(host);

import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { ipToBigInt, isLoopback, type Cidr } from '../api/ip.ts';

// The IP range helpers are pure and live with the HTTP layer that checks peers; re-exported for the CLI and tests.
export { inCidrs, ipToBigInt, isLoopback, type Cidr } from '../api/ip.ts';

/** The service's configuration, read from `SITES_*` variables (spec §8). */
export type Config = {
  readonly listen: { readonly host: string; readonly port: number };
  readonly baseDomain: string;
  readonly aliasDomains: readonly string[];
  /**
   * The apex people and clients use for the control plane (portal, OAuth, links). Defaults
   * to the base domain; set it to a name on another registrable domain to keep sites and
   * the portal cross-site. Always one of the apexes (added to the aliases when it is not).
   */
  readonly controlDomain: string;
  readonly publicScheme: 'http' | 'https';
  readonly dataDir: string;
  readonly eventStoreUrl?: string;
  readonly mongoUrl?: string;
  readonly s3?: { readonly endpoint: string; readonly bucket: string; readonly accessKey: string; readonly secretKey: string };
  readonly forwardAuthHeader: string;
  readonly adminUsers: ReadonlySet<string>;
  /**
   * For a laptop: every request from this machine that did not come through a proxy is
   * signed in as this admin. Only allowed when the service listens on loopback.
   */
  readonly localAdmin?: string;
  readonly trustedProxies: readonly Cidr[];
  readonly maxUploadBytes: number;
  readonly maxExtractBytes: number;
  readonly maxExtractEntries: number;
  /** Slow-client guard: at least `minBytesPerSecond` over every `windowMs` while an upload arrives (0 disables). */
  readonly uploadPace: { readonly windowMs: number; readonly minBytesPerSecond: number };
  /** Connections one client address (IPv4, or IPv6 /64) may hold open; trusted proxies are not capped (0 disables). */
  readonly maxConnectionsPerAddress: number;
  readonly versioning: { readonly enabled: boolean; readonly keep: number };
  readonly deletedSiteTtlMs: number;
  /** How long an incremental deploy stays open before it expires (spec §10: 1h; shorter for tests). */
  readonly deployTtlMs: number;
  /**
   * How long start-up waits for a store server (EventStoreDB, MongoDB, S3) that does not
   * answer yet, before it stops with one line naming the store (`SITES_STORE_WAIT`).
   */
  readonly storeWaitMs: number;
  readonly mcp: {
    readonly enabled: boolean;
    readonly allowedUsers: ReadonlySet<string>;
    readonly group: string;
    readonly tokenTtlMs: number;
    readonly refreshTtlMs: number;
    /**
     * SITES_OAUTH_ALLOW_PRIVATE_METADATA: client ID metadata documents may be fetched from
     * loopback, private and other non-public addresses (and over http). Off: only public https.
     */
    readonly allowPrivateMetadata: boolean;
  };
  readonly webhooks: {
    /**
     * SITES_WEBHOOK_ALLOW_PRIVATE: webhook URLs may point at loopback, private and other
     * non-public addresses, and use http: (receivers on the service's own network).
     */
    readonly allowPrivate: boolean;
  };
  readonly logLevel: 'debug' | 'info' | 'warn' | 'error';
  readonly logFormat: 'text' | 'json';
};

/**
 * Open connections one client address may hold (SITES_MAX_CONNECTIONS_PER_ADDRESS). A
 * browser opens at most 6 per host name and 256 in all (Chromium's pool), usually far
 * fewer to one service even with a portal full of site previews; `sites publish` uploads 16
 * at a time, so 16 CI jobs behind one NAT address stay under it too.
 */
export const DEFAULT_MAX_CONNECTIONS_PER_ADDRESS = 256;
/** A bad value: start-up stops with this one line. */
export class ConfigError extends Error {}

const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Parses `720h`, `90m`, `30s`, `1.5h`, `7d` (Go-style, also as a sum: `1h30m`). */
export function parseDuration(value: string, name: string): number {
  const parts = value.trim().match(/\d+(?:\.\d+)?(?:ms|s|m|h|d)/g);
  if (!parts || parts.join('') !== value.trim()) throw new ConfigError(`${name}: cannot parse duration ${JSON.stringify(value)} (use e.g. 720h, 30m, 45s)`);
  let total = 0;
  for (const p of parts) {
    const m = DURATION.exec(p)!;
    total += Number(m[1]) * UNIT_MS[m[2]!]!;
  }
  if (total <= 0) throw new ConfigError(`${name}: duration must be positive`);
  return total;
}

export function parseCidr(value: string, name: string): Cidr {
  const parts = value.trim().split('/');
  if (parts.length > 2) throw new ConfigError(`${name}: ${JSON.stringify(value)} is not an IP address or CIDR`);
  let [addr, prefixText] = parts as [string, string | undefined];
  // An IPv4-mapped IPv6 entry (::ffff:10.0.0.1) means that IPv4 address: peers are compared as IPv4.
  if (/^::ffff:/i.test(addr) && isIP(addr.slice(7)) === 4) {
    addr = addr.slice(7);
    if (prefixText !== undefined) {
      const p = Number(prefixText);
      if (!/^\d+$/.test(prefixText) || p < 96 || p > 128) throw new ConfigError(`${name}: bad prefix length in ${JSON.stringify(value)}`);
      prefixText = String(p - 96);
    }
  }
  const family = isIP(addr ?? '');
  if (family === 0) throw new ConfigError(`${name}: ${JSON.stringify(value)} is not an IP address or CIDR`);
  const width = family === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? width : Number(prefixText);
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > width || (prefixText !== undefined && !/^\d+$/.test(prefixText))) {
    throw new ConfigError(`${name}: bad prefix length in ${JSON.stringify(value)}`);
  }
  return { family: family as 4 | 6, bits: ipToBigInt(addr!, family as 4 | 6), prefix };
}

function bytes(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const m = /^(\d+)\s*(b|kb|kib|mb|mib|gb|gib)?$/i.exec(raw.trim());
  if (!m) throw new ConfigError(`${name}: ${JSON.stringify(raw)} is not a byte count (e.g. 67108864 or 64MiB)`);
  const unit = (m[2] ?? 'b').toLowerCase();
  const mult = { b: 1, kb: 1e3, kib: 1024, mb: 1e6, mib: 1024 ** 2, gb: 1e9, gib: 1024 ** 3 }[unit]!;
  const n = Number(m[1]) * mult;
  if (n <= 0) throw new ConfigError(`${name}: must be positive`);
  return n;
}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name}: ${JSON.stringify(raw)} is not a whole number`);
  const n = Number(raw);
  if (n < min) throw new ConfigError(`${name}: must be at least ${min}`);
  return n;
}

function bool(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const v = raw.trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(v)) return true;
  if (['false', '0', 'no', 'off'].includes(v)) return false;
  throw new ConfigError(`${name}: ${JSON.stringify(raw)} is not true or false`);
}

function list(env: NodeJS.ProcessEnv, name: string): string[] {
  return (env[name] ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
}

function domain(value: string, name: string): string {
  const d = value.trim().toLowerCase().replace(/\.$/, '');
  if (!/^[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?$/.test(d) || d.includes('..')) throw new ConfigError(`${name}: ${JSON.stringify(value)} is not a domain name`);
  return d;
}

function listenAddr(raw: string, name: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(raw.trim());
  if (!m) throw new ConfigError(`${name}: ${JSON.stringify(raw)} is not HOST:PORT`);
  const port = Number(m[3]);
  if (port > 65535) throw new ConfigError(`${name}: port ${port} is out of range`);
  return { host: m[1] ?? (m[2] || '0.0.0.0'), port };
}

/** Reads and validates the whole configuration; throws ConfigError naming the first bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const baseDomain = domain(env.SITES_BASE_DOMAIN || 'localhost', 'SITES_BASE_DOMAIN');
  const schemeRaw = env.SITES_PUBLIC_SCHEME || (baseDomain === 'localhost' || baseDomain.endsWith('.localhost') ? 'http' : 'https');
  if (schemeRaw !== 'http' && schemeRaw !== 'https') throw new ConfigError(`SITES_PUBLIC_SCHEME: unknown scheme ${JSON.stringify(schemeRaw)} (http or https)`);
  const s3Vars = ['SITES_S3_ENDPOINT', 'SITES_S3_BUCKET', 'SITES_S3_ACCESS_KEY', 'SITES_S3_SECRET_KEY'] as const;
  const s3Set = s3Vars.filter((v) => env[v]);
  if (s3Set.length > 0 && s3Set.length < s3Vars.length) {
    throw new ConfigError(`${s3Vars.find((v) => !env[v])}: required when the other SITES_S3_* variables are set`);
  }
  if (env.SITES_S3_ENDPOINT && !/^https?:\/\/[^/]+\/?$/.test(env.SITES_S3_ENDPOINT)) {
    throw new ConfigError('SITES_S3_ENDPOINT: must be a URL like http://127.0.0.1:9000');
  }
  if (env.SITES_EVENTSTORE_URL && !/^(esdb|esdb\+discover|kurrentdb|kurrentdb\+discover|kdb|kdb\+discover):\/\//.test(env.SITES_EVENTSTORE_URL)) {
    throw new ConfigError('SITES_EVENTSTORE_URL: must be an esdb:// connection string');
  }
  if (env.SITES_MONGO_URL && !/^mongodb(\+srv)?:\/\//.test(env.SITES_MONGO_URL)) {
    throw new ConfigError('SITES_MONGO_URL: must be a mongodb:// connection string');
  }
  const adminUsers = new Set(list(env, 'SITES_ADMIN_USERS'));
  const listen = listenAddr(env.SITES_LISTEN_ADDR || '127.0.0.1:8080', 'SITES_LISTEN_ADDR');
  const localAdmin = env.SITES_LOCAL_ADMIN?.trim() || undefined;
  if (localAdmin !== undefined) {
    if (!/^[\w.@+-]{1,64}$/.test(localAdmin)) throw new ConfigError('SITES_LOCAL_ADMIN: a user name of letters, digits and . _ @ + - (at most 64)');
    if (!isLoopback(listen.host)) {
      throw new ConfigError(`SITES_LOCAL_ADMIN: allowed only when SITES_LISTEN_ADDR is a loopback address (it signs in every local request as an admin), not ${listen.host}`);
    }
    adminUsers.add(localAdmin);
  }
  const header = (env.SITES_FORWARD_AUTH_HEADER || 'Remote-User').trim();
  if (!/^[A-Za-z0-9-]+$/.test(header)) throw new ConfigError('SITES_FORWARD_AUTH_HEADER: not a valid header name');
  const logLevel = (env.SITES_LOG_LEVEL || 'info').toLowerCase();
  if (!['debug', 'info', 'warn', 'error'].includes(logLevel)) throw new ConfigError(`SITES_LOG_LEVEL: unknown level ${JSON.stringify(env.SITES_LOG_LEVEL)}`);
  const logFormat = (env.SITES_LOG_FORMAT || 'text').toLowerCase();
  if (logFormat !== 'text' && logFormat !== 'json') throw new ConfigError(`SITES_LOG_FORMAT: must be text or json`);
  const mcpGroup = (env.SITES_MCP_GROUP ?? 'mcp').trim();
  if (mcpGroup !== '' && !mcpGroup.split('/').every((l) => /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/.test(l))) {
    throw new ConfigError(`SITES_MCP_GROUP: ${JSON.stringify(mcpGroup)} is not a group path`);
  }
  const aliasDomains = list(env, 'SITES_ALIAS_DOMAINS').map((d) => domain(d, 'SITES_ALIAS_DOMAINS'));
  const controlDomain = env.SITES_CONTROL_DOMAIN ? domain(env.SITES_CONTROL_DOMAIN, 'SITES_CONTROL_DOMAIN') : baseDomain;
  if (controlDomain !== baseDomain && !aliasDomains.includes(controlDomain)) aliasDomains.push(controlDomain);
  return {
    listen,
    baseDomain,
    aliasDomains,
    controlDomain,
    publicScheme: schemeRaw,
    dataDir: resolve(env.SITES_DATA_DIR || './data'),
    ...(env.SITES_EVENTSTORE_URL ? { eventStoreUrl: env.SITES_EVENTSTORE_URL } : {}),
    ...(env.SITES_MONGO_URL ? { mongoUrl: env.SITES_MONGO_URL } : {}),
    ...(s3Set.length
      ? { s3: { endpoint: env.SITES_S3_ENDPOINT!, bucket: env.SITES_S3_BUCKET!, accessKey: env.SITES_S3_ACCESS_KEY!, secretKey: env.SITES_S3_SECRET_KEY! } }
      : {}),
    forwardAuthHeader: header.toLowerCase(),
    adminUsers,
    ...(localAdmin ? { localAdmin } : {}),
    trustedProxies: (env.SITES_TRUSTED_PROXIES === undefined ? ['127.0.0.1', '::1'] : list(env, 'SITES_TRUSTED_PROXIES')).map((c) =>
      parseCidr(c, 'SITES_TRUSTED_PROXIES'),
    ),
    maxUploadBytes: bytes(env, 'SITES_MAX_UPLOAD_BYTES', 64 * 1024 ** 2),
    maxExtractBytes: bytes(env, 'SITES_MAX_EXTRACT_BYTES', 256 * 1024 ** 2),
    maxExtractEntries: int(env, 'SITES_MAX_EXTRACT_ENTRIES', 10_000, 1),
    uploadPace: {
      windowMs: int(env, 'SITES_UPLOAD_STALL_WINDOW_MS', 30_000, 0),
      minBytesPerSecond: int(env, 'SITES_UPLOAD_MIN_BYTES_PER_S', 10 * 1024, 0),
    },
    maxConnectionsPerAddress: int(env, 'SITES_MAX_CONNECTIONS_PER_ADDRESS', DEFAULT_MAX_CONNECTIONS_PER_ADDRESS, 0),
    versioning: { enabled: bool(env, 'SITES_VERSIONING_ENABLED', false), keep: int(env, 'SITES_VERSIONING_KEEP', 5, 1) },
    deletedSiteTtlMs: parseDuration(env.SITES_DELETED_SITE_TTL || '720h', 'SITES_DELETED_SITE_TTL'),
    deployTtlMs: parseDuration(env.SITES_DEPLOY_TTL || '1h', 'SITES_DEPLOY_TTL'),
    storeWaitMs: parseDuration(env.SITES_STORE_WAIT || '60s', 'SITES_STORE_WAIT'),
    mcp: {
      enabled: bool(env, 'SITES_MCP_ENABLED', true),
      allowedUsers: env.SITES_MCP_ALLOWED_USERS === undefined ? adminUsers : new Set(list(env, 'SITES_MCP_ALLOWED_USERS')),
      group: mcpGroup,
      tokenTtlMs: parseDuration(env.SITES_MCP_TOKEN_TTL || '1h', 'SITES_MCP_TOKEN_TTL'),
      refreshTtlMs: parseDuration(env.SITES_MCP_REFRESH_TTL || '720h', 'SITES_MCP_REFRESH_TTL'),
      allowPrivateMetadata: bool(env, 'SITES_OAUTH_ALLOW_PRIVATE_METADATA', false),
    },
    webhooks: { allowPrivate: bool(env, 'SITES_WEBHOOK_ALLOW_PRIVATE', false) },
    logLevel: logLevel as Config['logLevel'],
    logFormat,
  };
}

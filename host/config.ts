import { isLoopback, type Cidr } from '../api/ip.ts';
import { ConfigError } from './config-parsers.ts';
import { readSettings } from './config-settings.ts';

// The IP range helpers are pure and live with the HTTP layer that checks peers; re-exported for the CLI and tests.
export { inCidrs } from '../api/ip.ts';
export { ConfigError, parseCidr, parseDuration } from './config-parsers.ts';

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
  /** Previews (spec §14): how long one lives after its last publish, and how many a site may have. */
  readonly previews: { readonly ttlMs: number; readonly maxPerSite: number };
  /** How long an incremental deploy stays open before it expires (spec §10: 1h; shorter for tests). */
  readonly deployTtlMs: number;
  /**
   * How long start-up waits for a store server (EventStoreDB, MongoDB, S3) that does not
   * answer yet, before it stops with one line naming the store (`SITES_STORE_WAIT`).
   */
  readonly storeWaitMs: number;
  /** Memory a catch-up's or a rebuild's projection batch may hold in records (`SITES_PROJECTION_BATCH_BYTES`). */
  readonly projectionBatchBytes: number;
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
 * Reads and validates the whole configuration; throws ConfigError naming the first bad
 * variable. Every variable is read through the table of host/config-settings.ts (which the
 * configuration reference is generated from); what is left here are the rules that tie
 * settings together.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const v = readSettings(env);
  const baseDomain = v.SITES_BASE_DOMAIN;
  const publicScheme = v.SITES_PUBLIC_SCHEME ?? (baseDomain === 'localhost' || baseDomain.endsWith('.localhost') ? 'http' : 'https');
  const s3 = [v.SITES_S3_ENDPOINT, v.SITES_S3_BUCKET, v.SITES_S3_ACCESS_KEY, v.SITES_S3_SECRET_KEY] as const;
  const s3Names = ['SITES_S3_ENDPOINT', 'SITES_S3_BUCKET', 'SITES_S3_ACCESS_KEY', 'SITES_S3_SECRET_KEY'] as const;
  if (s3.some((x) => x !== undefined) && s3.some((x) => x === undefined)) {
    throw new ConfigError(`${s3Names[s3.findIndex((x) => x === undefined)]}: required when the other SITES_S3_* variables are set`);
  }
  const adminUsers = new Set(v.SITES_ADMIN_USERS ?? []);
  const listen = v.SITES_LISTEN_ADDR;
  const localAdmin = v.SITES_LOCAL_ADMIN;
  if (localAdmin !== undefined) {
    if (!isLoopback(listen.host)) {
      throw new ConfigError(`SITES_LOCAL_ADMIN: allowed only when SITES_LISTEN_ADDR is a loopback address (it signs in every local request as an admin), not ${listen.host}`);
    }
    adminUsers.add(localAdmin);
  }
  const aliasDomains = v.SITES_ALIAS_DOMAINS ?? [];
  const controlDomain = v.SITES_CONTROL_DOMAIN ?? baseDomain;
  if (controlDomain !== baseDomain && !aliasDomains.includes(controlDomain)) aliasDomains.push(controlDomain);
  const [endpoint, bucket, accessKey, secretKey] = s3;
  return {
    listen,
    baseDomain,
    aliasDomains,
    controlDomain,
    publicScheme,
    dataDir: v.SITES_DATA_DIR,
    ...(v.SITES_EVENTSTORE_URL ? { eventStoreUrl: v.SITES_EVENTSTORE_URL } : {}),
    ...(v.SITES_MONGO_URL ? { mongoUrl: v.SITES_MONGO_URL } : {}),
    ...(endpoint && bucket && accessKey && secretKey ? { s3: { endpoint, bucket, accessKey, secretKey } } : {}),
    forwardAuthHeader: v.SITES_FORWARD_AUTH_HEADER.toLowerCase(),
    adminUsers,
    ...(localAdmin ? { localAdmin } : {}),
    trustedProxies: v.SITES_TRUSTED_PROXIES,
    maxUploadBytes: v.SITES_MAX_UPLOAD_BYTES,
    maxExtractBytes: v.SITES_MAX_EXTRACT_BYTES,
    maxExtractEntries: v.SITES_MAX_EXTRACT_ENTRIES,
    uploadPace: { windowMs: v.SITES_UPLOAD_STALL_WINDOW_MS, minBytesPerSecond: v.SITES_UPLOAD_MIN_BYTES_PER_S },
    maxConnectionsPerAddress: v.SITES_MAX_CONNECTIONS_PER_ADDRESS,
    versioning: { enabled: v.SITES_VERSIONING_ENABLED, keep: v.SITES_VERSIONING_KEEP },
    deletedSiteTtlMs: v.SITES_DELETED_SITE_TTL,
    previews: { ttlMs: v.SITES_PREVIEW_TTL, maxPerSite: v.SITES_MAX_PREVIEWS_PER_SITE },
    deployTtlMs: v.SITES_DEPLOY_TTL,
    storeWaitMs: v.SITES_STORE_WAIT,
    projectionBatchBytes: v.SITES_PROJECTION_BATCH_BYTES,
    mcp: {
      enabled: v.SITES_MCP_ENABLED,
      allowedUsers: v.SITES_MCP_ALLOWED_USERS === undefined ? adminUsers : new Set(v.SITES_MCP_ALLOWED_USERS),
      group: v.SITES_MCP_GROUP,
      tokenTtlMs: v.SITES_MCP_TOKEN_TTL,
      refreshTtlMs: v.SITES_MCP_REFRESH_TTL,
      allowPrivateMetadata: v.SITES_OAUTH_ALLOW_PRIVATE_METADATA,
    },
    webhooks: { allowPrivate: v.SITES_WEBHOOK_ALLOW_PRIVATE },
    logLevel: v.SITES_LOG_LEVEL,
    logFormat: v.SITES_LOG_FORMAT,
  };
}

import type { Cidr } from './ip.ts';
import type { AuditEntry } from './audit-entry.ts';

/**
 * The part of the service's configuration the HTTP layer and the MCP connector read. The
 * composition root (host/config.ts) loads the whole of it from `SITES_*` variables and
 * passes it in; its `Config` is this and more.
 */
export type ApiConfig = {
  readonly baseDomain: string;
  readonly aliasDomains: readonly string[];
  /** The header (lower case) a trusted proxy names the signed-in user in. */
  readonly forwardAuthHeader: string;
  readonly adminUsers: ReadonlySet<string>;
  /** With SITES_LOCAL_ADMIN on a loopback-only service: who a request straight from this machine is. */
  readonly localAdmin?: string;
  readonly trustedProxies: readonly Cidr[];
  readonly maxUploadBytes: number;
  /** Slow-client guard: at least `minBytesPerSecond` over every `windowMs` while an upload arrives (0 disables). */
  readonly uploadPace: { readonly windowMs: number; readonly minBytesPerSecond: number };
  readonly versioning: { readonly enabled: boolean };
  /** How long an unpublished site waits in the trash before it is purged (the trash says when). */
  readonly deletedSiteTtlMs: number;
  readonly mcp: {
    readonly enabled: boolean;
    readonly allowedUsers: ReadonlySet<string>;
    readonly group: string;
    readonly tokenTtlMs: number;
    readonly refreshTtlMs: number;
  };
};

/** What the HTTP layer tells the composition root about, without knowing what it does with it. */
export type ApiHooks = {
  /** Bytes of a request body arrived (host/: a young-generation GC hint every few MiB). */
  readonly bytesReceived: (bytes: number) => void;
  /** A write happened (whatever its outcome) or a request was refused with 401/403: one line of the operator's log. */
  readonly audit: (entry: AuditEntry) => void;
  /** The service's log, for what only the operator should read (an internal error's cause). */
  readonly log: LogPort;
};

/** The service log as the HTTP layer and the connector see it (host/log.ts: pino, text or JSON lines). */
export type LogPort = {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
};

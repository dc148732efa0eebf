import { resolve } from 'node:path';
import * as p from './config-parsers.ts';
import type { Parser } from './config-parsers.ts';

/**
 * Every `SITES_*` variable the service reads, in one declarative table: `loadConfig` reads
 * the environment only through it, and `npm run docs` writes the configuration reference
 * (docs/reference/configuration.md) from it, so a variable cannot exist without being
 * documented, and its documented default is the one the loader uses.
 */
export type Setting<T> = {
  readonly section: Section;
  /** What it does, for the reference: Markdown, one or two sentences. */
  readonly doc: string;
  /** The raw value used when the variable is unset (or empty, unless `emptyIsValue`). */
  readonly default?: string;
  /** For the reference, when the default is not a fixed value (it follows another setting). */
  readonly defaultDoc?: string;
  /** An empty value is a value (an empty list), not "use the default". */
  readonly emptyIsValue?: true;
  readonly type: Parser<T>;
};

export const SECTIONS = ['Addresses', 'Stores', 'Sign-in and trust', 'Limits', 'Versions and trash', 'MCP connector', 'Webhooks', 'Logging'] as const;
export type Section = (typeof SECTIONS)[number];

/**
 * Open connections one client address may hold (SITES_MAX_CONNECTIONS_PER_ADDRESS). A
 * browser opens at most 6 per host name and 256 in all (Chromium's pool), usually far
 * fewer to one service even with a portal full of site previews; `sites publish` uploads 16
 * at a time, so 16 CI jobs behind one NAT address stay under it too.
 */
export const DEFAULT_MAX_CONNECTIONS_PER_ADDRESS = 256;

const setting = <T>(s: Setting<T>): Setting<T> & { readonly default: string } => s as Setting<T> & { readonly default: string };
const optional = <T>(s: Omit<Setting<T>, 'default'>): Setting<T> => s;

/** A group path: empty, or labels separated by `/` (the rule of domain/paths.ts, without its depth limit). */
const GROUP_PATH = /^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\/[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*)?$/;

export const SETTINGS = {
  SITES_LISTEN_ADDR: setting({
    section: 'Addresses',
    default: '127.0.0.1:8080',
    doc: 'The address the service listens on. The service also answers requests addressed to this address itself (`http://127.0.0.1:8080`) as the apex.',
    type: p.listenAddr,
  }),
  SITES_BASE_DOMAIN: setting({
    section: 'Addresses',
    default: 'localhost',
    doc: 'The apex: the portal, `/api`, `/ingest` and `/mcp` live on it, and every name below it is a site (`app.docs.<base>` is the site `docs/app`).',
    type: p.domain,
  }),
  SITES_ALIAS_DOMAINS: optional({
    section: 'Addresses',
    doc: 'More apexes serving the same sites (`app.docs.<alias>` serves `docs/app` too).',
    type: p.domains,
  }),
  SITES_CONTROL_DOMAIN: optional({
    section: 'Addresses',
    defaultDoc: 'the base domain',
    doc: 'The apex used for the portal, OAuth and the links the service generates. Set it to a name on another registrable domain to keep sites and the portal cross-site (see [Security](../explanation/security.md#the-strongest-setup-sites-on-a-separate-registrable-domain)); it becomes one of the apexes.',
    type: p.domain,
  }),
  SITES_PUBLIC_SCHEME: optional({
    section: 'Addresses',
    defaultDoc: '`http` for `localhost`, else `https`',
    doc: 'The scheme of the URLs the service generates (site URLs, links, OAuth metadata).',
    type: p.oneOf(['http', 'https'], (raw) => `unknown scheme ${JSON.stringify(raw)} (http or https)`),
  }),
  SITES_DATA_DIR: setting({
    section: 'Stores',
    default: './data',
    doc: 'The embedded stores (event log, read model, files) and uploads in progress. See [production stores](../how-to/production-stores.md#the-embedded-stack).',
    type: { format: 'folder path', parse: (raw) => resolve(raw) },
  }),
  SITES_EVENTSTORE_URL: optional({
    section: 'Stores',
    defaultDoc: 'embedded (SQLite in the data folder)',
    doc: 'The event log on EventStoreDB, e.g. `esdb://127.0.0.1:2113?tls=false`.',
    type: p.matching('`esdb://` connection string', /^(esdb|esdb\+discover|kurrentdb|kurrentdb\+discover|kdb|kdb\+discover):\/\//, () => 'must be an esdb:// connection string', false),
  }),
  SITES_MONGO_URL: optional({
    section: 'Stores',
    defaultDoc: 'embedded (SQLite in the data folder)',
    doc: 'The read model on MongoDB, e.g. `mongodb://127.0.0.1:27017/sites`; the database is the one named in the URL.',
    type: p.matching('`mongodb://` connection string', /^mongodb(\+srv)?:\/\//, () => 'must be a mongodb:// connection string', false),
  }),
  SITES_S3_ENDPOINT: optional({
    section: 'Stores',
    defaultDoc: 'embedded (a folder in the data folder)',
    doc: 'The file store on MinIO or any S3, e.g. `http://127.0.0.1:9000`. The four `SITES_S3_*` variables go together.',
    type: p.matching('URL', /^https?:\/\/[^/]+\/?$/, () => 'must be a URL like http://127.0.0.1:9000', false),
  }),
  SITES_S3_BUCKET: optional({ section: 'Stores', doc: 'The bucket (created if missing).', type: p.text }),
  SITES_S3_ACCESS_KEY: optional({ section: 'Stores', doc: 'The S3 access key.', type: p.text }),
  SITES_S3_SECRET_KEY: optional({ section: 'Stores', doc: 'The S3 secret key.', type: p.text }),
  SITES_STORE_WAIT: setting({
    section: 'Stores',
    default: '60s',
    doc: 'How long start-up waits for an EventStoreDB, MongoDB or S3 server that does not answer yet (a log line per store while it waits); then it stops with one line naming the store.',
    type: p.duration,
  }),
  SITES_FORWARD_AUTH_HEADER: setting({
    section: 'Sign-in and trust',
    default: 'Remote-User',
    doc: 'The header your sign-in proxy sets to the signed-in user name.',
    type: p.matching('header name', /^[A-Za-z0-9-]+$/, () => 'not a valid header name'),
  }),
  SITES_ADMIN_USERS: optional({
    section: 'Sign-in and trust',
    doc: 'Signed-in users who are admins; every other signed-in user is a viewer.',
    type: p.names,
  }),
  SITES_LOCAL_ADMIN: optional({
    section: 'Sign-in and trust',
    doc: 'On a laptop: every request from this machine that did not come through a proxy is signed in as this admin. Refused unless `SITES_LISTEN_ADDR` is a loopback address.',
    type: p.matching('user name', /^[\w.@+-]{1,64}$/, () => 'a user name of letters, digits and . _ @ + - (at most 64)'),
  }),
  SITES_TRUSTED_PROXIES: setting({
    section: 'Sign-in and trust',
    default: '127.0.0.1,::1',
    emptyIsValue: true,
    doc: 'The peers allowed to send the identity header and to ask `/tls/ask`; from any other peer the header is ignored. Empty: none.',
    type: p.cidrs,
  }),
  SITES_MAX_UPLOAD_BYTES: setting({ section: 'Limits', default: '64MiB', doc: 'The largest upload (an archive, or one file of an incremental deploy).', type: p.bytes }),
  SITES_MAX_EXTRACT_BYTES: setting({ section: 'Limits', default: '256MiB', doc: 'The largest total size of a site once its archive is unpacked.', type: p.bytes }),
  SITES_PROJECTION_BATCH_BYTES: setting({
    section: 'Limits',
    default: '160MiB',
    doc: 'About how much memory the records of one projection batch may take before it commits, in a replay, a start that rebuilds the read model, or a catch-up: a replay holding every site in one batch writes each site once (100,000 sites take about 115 MB).',
    type: p.bytes,
  }),
  SITES_MAX_EXTRACT_ENTRIES: setting({ section: 'Limits', default: '10000', doc: 'The most entries (files and folders) an archive may hold.', type: p.int(1) }),
  SITES_UPLOAD_MIN_BYTES_PER_S: setting({
    section: 'Limits',
    default: '10240',
    doc: 'Slow-client guard: a request body that arrives slower than this, over each window of `SITES_UPLOAD_STALL_WINDOW_MS`, is cut off with 408. `0` disables the guard.',
    type: p.int(0),
  }),
  SITES_UPLOAD_STALL_WINDOW_MS: setting({
    section: 'Limits',
    default: '30000',
    doc: 'The window, in milliseconds, over which the slow-client pace is measured. `0` disables the guard.',
    type: p.int(0),
  }),
  SITES_MAX_CONNECTIONS_PER_ADDRESS: setting({
    section: 'Limits',
    default: String(DEFAULT_MAX_CONNECTIONS_PER_ADDRESS),
    doc: 'Open connections one client address (an IPv4 address, or an IPv6 /64) may hold; a connection over the cap is answered 429. The trusted proxies are not capped. `0` disables the cap. See [Security](../explanation/security.md#what-the-service-guarantees).',
    type: p.int(0),
  }),
  SITES_VERSIONING_ENABLED: setting({
    section: 'Versions and trash',
    default: 'false',
    doc: 'Keep archived revisions on every replace, and allow rollback to them.',
    type: p.bool,
  }),
  SITES_VERSIONING_KEEP: setting({
    section: 'Versions and trash',
    default: '5',
    doc: 'How many archived revisions each site keeps (the one archived longest ago is dropped first).',
    type: p.int(1),
  }),
  SITES_DELETED_SITE_TTL: setting({
    section: 'Versions and trash',
    default: '720h',
    doc: 'How long an unpublished site stays in the trash before it is purged automatically.',
    type: p.duration,
  }),
  SITES_PREVIEW_TTL: setting({
    section: 'Versions and trash',
    default: '336h',
    doc: 'How long a preview lives after its last publish; then the service removes it (`PreviewExpired`) and collects the files only it held.',
    type: p.duration,
  }),
  SITES_MAX_PREVIEWS_PER_SITE: setting({
    section: 'Versions and trash',
    default: '50',
    doc: 'The most previews a site may have at once; publishing one more answers 409 until one is removed or expires.',
    type: p.int(1),
  }),
  SITES_DEPLOY_TTL: setting({
    section: 'Versions and trash',
    default: '1h',
    doc: 'How long an incremental deploy stays open; then it answers 404 and the uploads nothing else uses are collected. Shorter only for tests and demos.',
    type: p.duration,
  }),
  SITES_MCP_ENABLED: setting({ section: 'MCP connector', default: 'true', doc: 'Serve the MCP connector at `/mcp` (and its OAuth endpoints).', type: p.bool }),
  SITES_MCP_ALLOWED_USERS: optional({
    section: 'MCP connector',
    defaultDoc: 'the admins',
    emptyIsValue: true,
    doc: 'Signed-in users who may approve a connector on its consent page.',
    type: p.names,
  }),
  SITES_MCP_GROUP: setting({
    section: 'MCP connector',
    default: 'mcp',
    emptyIsValue: true,
    doc: 'The target group the consent page suggests (a group path such as `mcp` or `docs/agents`; empty: every site).',
    type: p.matching('group path: labels separated by `/`', GROUP_PATH, (raw) => `${JSON.stringify(raw.trim())} is not a group path (labels of a-z, 0-9 and inner hyphens, separated by /)`),
  }),
  SITES_MCP_TOKEN_TTL: setting({ section: 'MCP connector', default: '1h', doc: 'Lifetime of a connector access token.', type: p.duration }),
  SITES_MCP_REFRESH_TTL: setting({ section: 'MCP connector', default: '720h', doc: 'Lifetime of a connector refresh token.', type: p.duration }),
  SITES_OAUTH_ALLOW_PRIVATE_METADATA: setting({
    section: 'MCP connector',
    default: 'false',
    doc: 'Let the connector fetch OAuth client metadata documents from loopback, private and other non-public addresses (and over http). Only for hosts on your own network.',
    type: p.bool,
  }),
  SITES_WEBHOOK_ALLOW_PRIVATE: setting({
    section: 'Webhooks',
    default: 'false',
    doc: 'Let webhooks point at loopback, private and other non-public addresses, and use http:. Only for receivers on your own network; off, a webhook URL must be https and resolve to public addresses, at creation and at every delivery. See [Webhooks](../how-to/webhooks.md).',
    type: p.bool,
  }),
  SITES_LOG_LEVEL: setting({
    section: 'Logging',
    default: 'info',
    doc: 'The least severe log entry written to stderr: `debug`, `info`, `warn` or `error`. See [Logs](logs.md).',
    type: p.oneOf(['debug', 'info', 'warn', 'error'], (raw) => `unknown level ${JSON.stringify(raw)}`),
  }),
  SITES_LOG_FORMAT: setting({
    section: 'Logging',
    default: 'text',
    doc: 'Log lines as `text` (one readable line per entry) or `json` (every line a JSON object, for a log collector). See [Logs](logs.md).',
    type: p.oneOf(['text', 'json'], () => 'must be text or json'),
  }),
};

export type SettingName = keyof typeof SETTINGS;

type ValueOf<S> = S extends Setting<infer T> & { readonly default: string } ? T : S extends Setting<infer T> ? T | undefined : never;

/** The parsed value of every setting: its default when unset, undefined for an unset optional one. */
export type SettingValues = { readonly [K in SettingName]: ValueOf<(typeof SETTINGS)[K]> };

/** Reads every setting from `env` in table order; the first bad value throws its one-line ConfigError. */
export function readSettings(env: NodeJS.ProcessEnv): SettingValues {
  const values: Record<string, unknown> = {};
  for (const [name, s] of Object.entries(SETTINGS) as [SettingName, Setting<unknown>][]) {
    const given = env[name];
    const raw = given === undefined || (given.trim() === '' && !s.emptyIsValue) ? s.default : given;
    values[name] = raw === undefined ? undefined : s.type.parse(raw, name);
  }
  return values as SettingValues;
}


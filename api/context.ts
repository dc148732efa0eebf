import type { Readable } from 'node:stream';
import type { CommandDeps } from '../app/deps.ts';
import type { IncomingFile } from '../app/publish/publish.ts';
import type { SiteAddress } from '../domain/paths.ts';
import type { OutboundHttp } from '../domain/ports.ts';
import type { ManifestCache } from '../app/queries/manifest-cache.ts';
import type { ActivityStore } from '../projections/activity.ts';
import type { WebhookDeliveries } from '../projections/webhooks.ts';
import type { ApiConfig, ApiHooks } from './config.ts';

/** Everything the HTTP layer (and the MCP connector) needs from the composition root. */
export type ApiContext = {
  readonly deps: CommandDeps;
  readonly config: ApiConfig;
  /** Notifications for the composition root (request bytes arrived). */
  readonly hooks: ApiHooks;
  /** Canonical URL of a site (`http://app.docs.localhost:8080/`). */
  readonly siteUrl: (address: SiteAddress) => string;
  /** Host names (no port, IPv6 without brackets) the apex answers to: base, aliases, the listen address. */
  readonly apexHosts: readonly string[];
  /** Public origin of the apex (`http://localhost:8080`), for OAuth metadata and links. */
  readonly apexOrigin: () => string;
  /** Streams the entries of a .tar.gz or .zip upload with the configured limits (host/archive). */
  readonly readArchive: (source: Readable) => AsyncIterable<IncomingFile>;
  /** Notes that a key was used; written as a coalesced `KeyUsed` event, never one per request. */
  readonly keyUsed: (keyId: number) => void;
  /** Notes that an MCP connection's access token authorized a request; coalesced like `keyUsed`. */
  readonly connectionUsed: (connectionId: string) => void;
  /** Parsed revision manifests, cached by hash (shared with site serving). */
  readonly manifests: ManifestCache;
  /**
   * The service's own HTTP requests, one client per purpose, each with the policy of its
   * switch (host/outbound/): never imported, always handed in.
   */
  readonly outbound: {
    /** OAuth client ID metadata documents (SITES_OAUTH_ALLOW_PRIVATE_METADATA). */
    readonly oauthMetadata: OutboundHttp;
    /** Webhook URLs, checked at creation; deliveries go through the same policy (SITES_WEBHOOK_ALLOW_PRIVATE). */
    readonly webhooks: OutboundHttp;
  };
  /** The activity log's store (spec §16). */
  readonly activity: ActivityStore;
  /** Webhook subscriptions and deliveries (spec §16). */
  readonly webhooks: WebhookDeliveries;
  /** Wakes this instance's webhook sender (absent where none runs). */
  readonly wakeSender?: () => void;
};

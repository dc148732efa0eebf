import type { Readable } from 'node:stream';
import type { AppDeps } from '../app/deps.ts';
import type { IncomingFile } from '../app/publish/publish-site.ts';
import type { OutboundHttp } from '../domain/ports.ts';
import type { ApiConfig, ApiHooks } from './config.ts';

/**
 * Everything the HTTP layer (and the MCP connector) needs from the composition root: the
 * use cases' dependencies (`deps`, handed to every use case as is) and what only an edge
 * needs (configuration, the archive reader, the usage recorders, the OAuth outbound client).
 * What the webhook and activity use cases read (their stores, the webhook outbound client,
 * the sender's wake-up) is in `deps` too.
 */
export type ApiContext = {
  readonly deps: AppDeps;
  readonly config: ApiConfig;
  /** Notifications for the composition root (request bytes arrived). */
  readonly hooks: ApiHooks;
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
  /**
   * The service's own HTTP requests, one client per purpose, each with the policy of its
   * switch (host/outbound/): never imported, always handed in.
   */
  readonly outbound: {
    /** OAuth client ID metadata documents (SITES_OAUTH_ALLOW_PRIVATE_METADATA). */
    readonly oauthMetadata: OutboundHttp;
  };
};

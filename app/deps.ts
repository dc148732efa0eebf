import type { SiteAddress } from '../domain/paths.ts';
import type { BlobIndex, BlobStore, DeploySessions, EventStore, OutboundHttp } from '../domain/ports.ts';
import type { Versioning } from '../domain/site/decide.ts';
import type { Variant } from '../domain/site/previews.ts';
import type { ActivityStore } from '../projections/activity.ts';
import type { Queries } from '../projections/queries.ts';
import type { WebhookDeliveries } from '../projections/webhooks.ts';
import type { SiteShapes } from './contract/site-json.ts';
import type { PublishGate } from './gate.ts';
import type { ListingTree } from './queries/listing-tree.ts';
import type { FilteredTrees } from './queries/filtered-tree.ts';
import type { ManifestCache } from './queries/manifest-cache.ts';
import type { SiteListCache } from './queries/site-list-cache.ts';

export type Limits = {
  readonly maxUploadBytes: number;
  readonly maxExtractBytes: number;
  readonly maxExtractEntries: number;
  /** How long an incremental deploy stays open (spec §10: one hour; SITES_DEPLOY_TTL). */
  readonly deployTtlMs?: number;
};

/** Settings the answers carry (`GET /api/me`, the trash's purge times). */
export type Settings = {
  readonly baseDomain: string;
  readonly mcpEnabled: boolean;
  /** How long an unpublished site waits in the trash before the job purges it. */
  readonly deletedSiteTtlMs: number;
  /** Who may approve MCP connections (SITES_MCP_ALLOWED_USERS). */
  readonly mcpApprovers: ReadonlySet<string>;
  /** How long a preview lives after its last publish (SITES_PREVIEW_TTL; spec §14: 336h). */
  readonly previewTtlMs?: number;
  /** Previews per site (SITES_MAX_PREVIEWS_PER_SITE; spec §14: 50). */
  readonly maxPreviewsPerSite?: number;
  /**
   * The names the control plane answers to: the base domain, the aliases and the control
   * domain. A custom domain is none of them and under none of them (spec §15).
   */
  readonly serviceNames: readonly string[];
  /** The control domain when it is not the base domain: the portal kept apart from publisher content. */
  readonly separatePortalHost?: string;
};

/**
 * What every use case gets, built once per service instance by the composition root: the
 * ports (the log, the projected documents' queries, the blob index, the deploy sessions,
 * the file store), the settings, a way to wait until the projections have applied a stream
 * revision (read-your-writes), and the instance's caches (never process-global: two
 * instances in one process, as the tests run them, share nothing).
 */
export type AppDeps = {
  readonly events: EventStore;
  readonly queries: Queries;
  readonly blobIndex: BlobIndex;
  readonly deploys: DeploySessions;
  readonly blobs: BlobStore;
  readonly versioning: Versioning;
  readonly limits: Limits;
  readonly settings: Settings;
  /** Folder for spooled uploads (zip central directories live at the end). */
  readonly tmpDir: string;
  /** Resolves once the read model has applied `stream` up to `revision`. */
  readonly waitForProjection: (stream: string, revision: number) => Promise<void>;
  /** Publishes hold it shared, garbage collection exclusive (see gate.ts). */
  readonly gate: PublishGate;
  readonly now: () => Date;
  /**
   * Canonical URL of a site (`http://app.docs.localhost:8080/`), part of every `Site`; with a
   * variant, of its preview or permalink (`http://pr-42--app.docs.localhost:8080/`, spec §14).
   */
  readonly siteUrl: (address: SiteAddress, variant?: Variant) => string;
  /** Parsed revision manifests by hash (shared with site serving). */
  readonly manifests: ManifestCache;
  /** `Site` objects and their JSON bytes by document. */
  readonly shapes: SiteShapes;
  /** Listing bodies by query and encoding, valid while the listing's version stays. */
  readonly listings: SiteListCache;
  /** The listing's group tree as this instance last read it, rendered in compressed pieces. */
  readonly listingTree: ListingTree;
  /** The trees of filtered listings, in compressed chunks kept by their sites and revisions. */
  readonly filteredTrees: FilteredTrees;
  /** The activity log's store (spec §16). */
  readonly activity: ActivityStore;
  /** Webhook subscriptions and deliveries (spec §16). */
  readonly webhooks: WebhookDeliveries;
  /** The outbound client with the webhook policy (SITES_WEBHOOK_ALLOW_PRIVATE): checks URLs at creation. */
  readonly webhookOutbound: OutboundHttp;
  /** Wakes this instance's webhook sender (absent where none runs). */
  readonly wakeSender?: () => void;
};

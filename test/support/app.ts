import { join } from 'node:path';
import { Readable } from 'node:stream';
import { SiteShapes } from '../../app/contract/site-json.ts';
import type { AppDeps } from '../../app/deps.ts';
import { PublishGate } from '../../app/gate.ts';
import type { IncomingFile } from '../../app/publish/publish-site.ts';
import { ManifestCache } from '../../app/queries/manifest-cache.ts';
import { ListingTree } from '../../app/queries/listing-tree.ts';
import { FilteredTrees } from '../../app/queries/filtered-tree.ts';
import { SiteListCache } from '../../app/queries/site-list-cache.ts';
import { forwardAuthIdentity, operatorIdentity, type Identity } from '../../domain/auth.ts';
import type { Grant } from '../../domain/grants.ts';
import type { SiteAddress } from '../../domain/paths.ts';
import { siteHostLabels, type Variant } from '../../domain/site/previews.ts';
import type { EventStore } from '../../domain/ports.ts';
import { openFolderBlobStore } from '../../host/blobs/folder.ts';
import type { ReadModel } from '../../projections/read-model.ts';
import { openEmbeddedStores } from './embedded-stores.ts';

/**
 * The application layer in this process, on the embedded adapters (SQLite log and read
 * model, a folder of blobs) in a temporary folder: what a use-case test runs against. No
 * server, no spawned process: the use cases are called as the edges call them, with an
 * identity and a plain input. The projector catches up after every append (one catch-up at
 * a time, as the service's single projector runs), so a use case answers read-your-writes as
 * it does in the service.
 */
export type AppHarness = {
  readonly deps: AppDeps;
  readonly events: EventStore;
  readonly readModel: ReadModel;
  readonly dir: string;
  /** The clock the use cases read (`deps.now`); tests move it. */
  now: Date;
  close(): Promise<void>;
};

export function openApp(options: { versioning?: { enabled: boolean; keep: number }; limits?: Partial<AppDeps['limits']>; mcpApprovers?: string[] } = {}): AppHarness {
  const stores = openEmbeddedStores('app-');
  const { dir, events, readModel, activity, webhooks, projector } = stores;
  const blobs = openFolderBlobStore(join(dir, 'blobs'));
  let projecting: Promise<unknown> = Promise.resolve();
  const project = () => (projecting = projecting.then(() => projector.catchUp()));
  const siteUrl = (a: SiteAddress, variant?: Variant) => `http://${siteHostLabels(a, variant)}.localhost/`;
  const harness: AppHarness = {
    dir,
    events,
    readModel,
    now: new Date('2026-06-01T00:00:00.000Z'),
    deps: undefined as unknown as AppDeps,
    async close() {
      await projecting.catch(() => undefined);
      await blobs.close().catch(() => undefined);
      await stores.close();
    },
  };
  const shapes = new SiteShapes(siteUrl);
  const listingTree = new ListingTree(readModel, (doc, admin) => shapes.json(doc, admin));
  (harness as { deps: AppDeps }).deps = {
    events,
    queries: readModel,
    blobIndex: readModel,
    deploys: readModel,
    blobs,
    versioning: options.versioning ?? { enabled: true, keep: 5 },
    limits: { maxUploadBytes: 10_000_000, maxExtractBytes: 10_000_000, maxExtractEntries: 1000, ...options.limits },
    settings: { baseDomain: 'localhost', mcpEnabled: true, deletedSiteTtlMs: 3_600_000, mcpApprovers: new Set(options.mcpApprovers ?? ['admin']), serviceNames: ['localhost', 'alias.test'] },
    tmpDir: join(dir, 'tmp'),
    gate: new PublishGate(),
    now: () => harness.now,
    waitForProjection: async (stream, revision) => {
      await project();
      await projector.waitFor(stream, revision, 5_000);
    },
    siteUrl,
    manifests: new ManifestCache(blobs),
    shapes,
    listings: new SiteListCache(1_000_000),
    listingTree,
    filteredTrees: new FilteredTrees(readModel, listingTree, (doc, admin) => shapes.json(doc, admin)),
    activity,
    webhooks,
    // No request leaves a test: every destination is refused (a webhook test brings its own client).
    webhookOutbound: {
      check: async () => ({ reason: 'address', message: 'no outbound requests in the application tests' }),
      request: async () => ({ ok: false, refusal: { reason: 'address', message: 'no outbound requests in the application tests' } }),
    },
  };
  return harness;
}

/** Identities as the edges authenticate them. */
export const admin: Identity = forwardAuthIdentity('admin', new Set(['admin']));
export const viewer: Identity = forwardAuthIdentity('guest', new Set(['admin']));
export const operator: Identity = operatorIdentity('test');
let keyIds = 100;
/** An API key's identity holding `grants` (`admin`: an admin key). */
export function keyHolder(grants: readonly Grant[] | 'admin', name = 'ci'): Identity {
  const id = ++keyIds;
  return {
    principal: grants === 'admin' ? { kind: 'admin' } : { kind: 'grants', grants },
    actor: { kind: 'key', id, name },
    via: 'key',
    keyId: id,
    name: `key ${name}`,
  };
}

/** A site's files as a publish receives them. */
export async function* files(entries: Record<string, string | Buffer>): AsyncGenerator<IncomingFile> {
  for (const [path, content] of Object.entries(entries)) yield { path, content: { kind: 'stream', source: Readable.from([Buffer.from(content)]) } };
}

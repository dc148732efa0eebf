import { MongoClient, MongoServerError, type Collection, type Db } from 'mongodb';
import type { Recorded } from '../../domain/events.ts';
import { batchFold } from '../../projections/batch.ts';
import { withLastUse, type ConnectionDoc, type KeyDoc, type OAuthClientDoc, type SiteDoc, type StreamRecord } from '../../projections/documents.ts';
import { positionKey } from '../../projections/positions.ts';
import { kindOfStream } from '../../projections/project.ts';
import type { ReadModel, ReadModelBatch, SiteRef } from '../../projections/read-model.ts';
import { deployCollections, mongoDeploys, type DeployBlobDocument, type DeployDocument } from './mongo-deploys.ts';
import {
  OBSOLETE_STREAM_INDEXES,
  STREAM_INDEXES,
  stampCommitted,
  type CheckpointDocument,
  type LeaseDocument,
  type ManifestDocument,
  type StreamDocument,
} from './mongo-documents.ts';
import {
  clientByIdQuery,
  connectionByIdQuery,
  connectionsQuery,
  expiredUnusedClientsQuery,
  expiredPreviewsQuery,
  keyByIdQuery,
  keyByTokenQuery,
  keysQuery,
  listingVersionQuery,
  withUsePipeline,
  quarantinedQuery,
  siteByDomainQuery,
  siteListQuery,
  SITE_MATCH_PROJECTION,
  siteMatchesAmongQuery,
  treeSinceQuery,
  siteByPathQuery,
  type FindSpec,
} from './mongo-queries.ts';
import { siteLister } from './mongo-listing.ts';
import { rebuildTree, TREE_INDEXES, updateTree, type TreeDocument } from './mongo-tree.ts';
import { ROOT, treeStateOf } from '../../projections/site-tree.ts';
import { CHECKPOINT_ID, writeChanges } from './mongo-write.ts';

/** Candidates per `$in` query: keeps each command far below MongoDB's 16 MB limit. */
const CHUNK = 5_000;
const DUPLICATE_KEY = 11000;

/**
 * The MongoDB read model. Every projection write is a revision-guarded replacement of one
 * stream document (idempotent, safe to repeat after a crash); the checkpoint is a
 * compare-and-set document, so a projector that lost its lease cannot move it; leases
 * use the server's clock (`$$NOW`), so instances with skewed clocks still agree.
 * The database is the one named in the URL's path (`sites` when none is given).
 */
export async function openMongoReadModel(url: string): Promise<ReadModel> {
  const client = new MongoClient(url, { ignoreUndefined: true, writeConcern: { w: 'majority' }, appName: 'sites-readmodel' });
  await client.connect();
  try {
    const db = client.db(databaseName(url));
    const streams = db.collection<StreamDocument>('streams');
    await streams.createIndexes(STREAM_INDEXES);
    await dropIndexes(streams, OBSOLETE_STREAM_INDEXES);
    await db.collection<ManifestDocument>('manifest_blobs').createIndex({ blobs: 1 }, { name: 'manifest_blobs' });
    await db.collection<TreeDocument>('site_tree').createIndexes(TREE_INDEXES);
    const { deploys, deployBlobs } = await deployCollections(db);
    return mongoReadModel(client, db, deploys, deployBlobs);
  } catch (err) {
    await client.close();
    throw err;
  }
}

/**
 * Answers once the deployment at `url` has a primary this service can write through: a
 * `ping` on the database, selected like a write, within `timeoutMs` (a replica set not yet
 * initiated, or electing, has none). Rejects with the driver's error otherwise.
 */
export async function probeMongo(url: string, timeoutMs: number): Promise<void> {
  const client = new MongoClient(url, { serverSelectionTimeoutMS: timeoutMs, connectTimeoutMS: timeoutMs, appName: 'sites-readmodel-probe' });
  try {
    await client.connect();
    await client.db(databaseName(url)).command({ ping: 1 }, { readPreference: 'primary' });
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** An error that waiting will not cure: a malformed URL, or credentials the server refused. */
export function mongoRefused(err: unknown): boolean {
  const name = (err as Error | null)?.name ?? '';
  if (name === 'MongoParseError' || name === 'MongoInvalidArgumentError' || name === 'MongoMissingCredentialsError') return true;
  const code = (err as { code?: unknown } | null)?.code;
  // 18 AuthenticationFailed, 13 Unauthorized.
  return err instanceof MongoServerError && (code === 18 || code === 13);
}

/** The database named in a MongoDB URL (`mongodb://h:27017/sites?…` → `sites`). */
export function databaseName(url: string): string {
  const match = /^mongodb(?:\+srv)?:\/\/[^/]*\/([^?]*)/.exec(url);
  const name = match?.[1] ? decodeURIComponent(match[1]) : '';
  return name || 'sites';
}

async function dropIndexes(collection: Collection<StreamDocument>, names: readonly string[]): Promise<void> {
  const present = new Set((await collection.listIndexes().toArray()).map((i) => String(i.name)));
  for (const name of names) if (present.has(name)) await collection.dropIndex(name);
}

function mongoReadModel(
  client: MongoClient,
  db: Db,
  deploys: Collection<DeployDocument>,
  deployBlobs: Collection<DeployBlobDocument>,
): ReadModel {
  const streams = db.collection<StreamDocument>('streams');
  const manifests = db.collection<ManifestDocument>('manifest_blobs');
  const checkpoints = db.collection<CheckpointDocument>('checkpoints');
  const leases = db.collection<LeaseDocument>('leases');
  const tree = db.collection<TreeDocument>('site_tree');
  const lister = siteLister(streams);

  /**
   * The listing's version: the newest tree node version the checkpoint covers ('' before
   * any). Nodes a batch wrote before its checkpoint (or before a crash) do not count until
   * the checkpoint reaches them.
   */
  const listingVersion = async (): Promise<string> => {
    const at = await checkpoints.findOne({ _id: CHECKPOINT_ID }, { projection: { key: 1 } });
    if (at?.key === undefined) return '';
    const spec = listingVersionQuery(at.key);
    const newest = await tree.find(spec.filter, { projection: { version: 1 }, sort: spec.sort, hint: spec.hint, limit: 1 }).next();
    return newest?.version ?? '';
  };

  const docOf = async <T>(spec: FindSpec): Promise<T | undefined> => {
    const found = await streams.findOne(spec.filter, { projection: { doc: 1 }, hint: spec.hint });
    return (found?.doc as T | null | undefined) ?? undefined;
  };
  const docsOf = async <T>(spec: FindSpec, limit?: number): Promise<T[]> => {
    const cursor = streams.find(spec.filter, { projection: { _id: 0, doc: 1 }, hint: spec.hint, ...(spec.sort ? { sort: spec.sort } : {}) });
    if (limit !== undefined) cursor.limit(limit);
    return (await cursor.toArray()).map((d) => d.doc as T);
  };
  /** Key or connection documents with the last use of their usage stream, in one round trip. */
  const usedOf = async <T extends { readonly lastUsedAt?: string }>(kind: 'key' | 'connection', spec: FindSpec): Promise<T[]> => {
    const rows = await streams.aggregate<{ doc: T; used?: string | null }>(withUsePipeline(kind, spec, streams.collectionName), { hint: spec.hint }).toArray();
    return rows.map((r) => withLastUse(r.doc, r.used));
  };
  const keysOf = (spec: FindSpec) => usedOf<KeyDoc>('key', spec);
  const connectionsOf = (spec: FindSpec) => usedOf<ConnectionDoc>('connection', spec);

  const beginBatch = async (): Promise<ReadModelBatch> => {
    const before = await checkpoints.findOne({ _id: CHECKPOINT_ID });
    // A read model projected before the tree existed has a checkpoint and no root node: the
    // tree is made once from its documents (the root is written then, even with no site).
    if (before && !(await tree.findOne({ _id: ROOT }, { projection: { _id: 1 } }))) await rebuildTree(streams, tree, before.key ?? '');
    const fold = batchFold();
    // Each stream's newest event seen by the batch: what its document is stamped with.
    const newest = new Map<string, { revision: number; position: string }>();
    return {
      from: before?.position,
      get streams() {
        return fold.streams;
      },
      get bytes() {
        return fold.bytes;
      },
      async add(events) {
        fold.add(events, await loadStreams(streams, fold.missing(events)));
        for (const e of events) {
          if (!kindOfStream(e.stream)) continue;
          const seen = newest.get(e.stream);
          if (!seen || e.revision > seen.revision) newest.set(e.stream, { revision: e.revision, position: e.position });
        }
      },
      async commit(checkpoint) {
        const stamp = (stream: string): string => {
          // A changed record's revision is that of the batch's newest event of its stream.
          const seen = newest.get(stream);
          if (!seen) throw new Error(`projection batch changed ${stream} without an event of it`);
          return positionKey(seen.position);
        };
        const key = positionKey(checkpoint);
        // Documents, then the tree nodes, then the checkpoint: a crash in between leaves
        // documents (and perhaps some nodes) ahead of the checkpoint. When the events come
        // again the revision guards keep the documents, and the tree is set from the stored
        // state of every site the batch touched (treeStateOf), moved or not, so the nodes
        // come back in line within that batch (mongo-tree.ts says why that is idempotent).
        await writeChanges(streams, fold.changes(), stamp);
        await updateTree(tree, treeStateOf(fold.records()), key);
        await compareAndSetCheckpoint(checkpoints, before, checkpoint, key);
      },
    };
  };

  return {
    async checkpoint() {
      return (await checkpoints.findOne({ _id: CHECKPOINT_ID }, { projection: { position: 1 } }))?.position;
    },

    async apply(events: readonly Recorded[], checkpoint: string) {
      const batch = await beginBatch();
      await batch.add(events);
      await batch.commit(checkpoint);
    },

    beginBatch,

    async streamRevision(stream) {
      // A document counts only once the checkpoint covers the event it was written from:
      // documents are written before the checkpoint moves, and a batch refused at its
      // checkpoint (another projector moved it) may have written some already. So a command
      // answers only once the checkpoint covers its events, and caches keyed by the
      // checkpoint (the listing, the site server) cannot miss them.
      const [found, at] = await Promise.all([
        streams.findOne({ _id: stream }, { projection: { revision: 1, at: 1, committedAt: 1 } }),
        checkpoints.findOne({ _id: CHECKPOINT_ID }, { projection: { version: 1, key: 1 } }),
      ]);
      if (!found) return -1;
      if (found.at !== undefined) return stampCommitted(found.at, at?.key) ? found.revision : -1;
      // Written by an earlier version, which stamped the checkpoint version its batch meant to commit as.
      return found.committedAt !== undefined && found.committedAt > (at?.version ?? 0) ? -1 : found.revision;
    },

    getSite: (path) => docOf<SiteDoc>(siteByPathQuery(path)),
    listSites: (query) => lister.list(query),
    async sitePage(query) {
      const spec = siteListQuery(query);
      const found = streams.find(spec.filter, { projection: { _id: 0, doc: 1 }, hint: spec.hint, ...(spec.sort ? { sort: spec.sort } : {}), skip: query.offset, limit: query.limit });
      return (await found.toArray()).map((d) => d.doc as SiteDoc);
    },
    async siteMatches(query, paths) {
      if (paths) {
        const out: SiteRef[] = [];
        for (let i = 0; i < paths.length; i += CHUNK) {
          const spec = siteMatchesAmongQuery(query, paths.slice(i, i + CHUNK));
          for await (const r of streams.find(spec.filter, { projection: SITE_MATCH_PROJECTION, hint: spec.hint })) out.push(r as unknown as SiteRef);
        }
        return out;
      }
      // The listing's own filter and index (group, then tag, first); the order is the index's.
      const spec = siteListQuery(query);
      return (await streams.find(spec.filter, { projection: SITE_MATCH_PROJECTION, hint: spec.hint, ...(spec.sort ? { sort: spec.sort } : {}) }).toArray()) as unknown as SiteRef[];
    },
    async getSites(paths) {
      const out: SiteDoc[] = [];
      for (let i = 0; i < paths.length; i += CHUNK) {
        const found = streams.find({ path: { $in: paths.slice(i, i + CHUNK) } }, { projection: { _id: 0, doc: 1 }, hint: siteByPathQuery('').hint });
        for await (const d of found) if (d.doc) out.push(d.doc as SiteDoc);
      }
      return out;
    },
    listingVersion,
    async siteTree(since) {
      // The version first: nodes written after it are read too (ahead of the checkpoint, as the
      // documents they name are): the reader asks again from this version, so it reads them
      // again once the checkpoint covers them.
      const version = await listingVersion();
      const spec = treeSinceQuery(since);
      const nodes = await tree.find(spec.filter, { hint: spec.hint }).toArray();
      return { version, nodes: nodes.map((d) => ({ version: d.version, node: d.node })) };
    },
    listQuarantined: () => docsOf<SiteDoc>(quarantinedQuery()),
    async siteByDomain(domain) {
      // At most one by the claims; two would mean the log says otherwise, and then none is guessed at.
      const found = await docsOf<SiteDoc>(siteByDomainQuery(domain), 2);
      return found.length === 1 ? found[0] : undefined;
    },

    getKey: async (id) => (await keysOf(keyByIdQuery(id)))[0],
    getKeyByTokenHash: async (tokenHash) => (await keysOf(keyByTokenQuery(tokenHash)))[0],
    listKeys: () => keysOf(keysQuery()),
    getConnection: async (id) => (await connectionsOf(connectionByIdQuery(id)))[0],
    listConnections: () => connectionsOf(connectionsQuery()),
    getOAuthClient: (clientId) => docOf<OAuthClientDoc>(clientByIdQuery(clientId)),
    listExpiredUnusedOAuthClients: (by, limit) => docsOf<OAuthClientDoc>(expiredUnusedClientsQuery(by), limit),
    listSitesWithExpiredPreviews: (by, limit) => docsOf<SiteDoc>(expiredPreviewsQuery(by), limit),

    async indexManifest(manifest, blobs) {
      // A manifest's content never changes, so the first complete insert is the answer for
      // good; a concurrent writer of the same manifest wrote the same list (duplicate key).
      try {
        await manifests.updateOne({ _id: manifest }, { $setOnInsert: { blobs: [...new Set(blobs)] } }, { upsert: true });
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
      }
    },

    async referencedBlobs(candidates) {
      const found = new Set<string>();
      for (let i = 0; i < candidates.length; i += CHUNK) {
        const wanted = new Set(candidates.slice(i, i + CHUNK));
        const chunk = [...wanted];
        // A retained revision's own manifest or favicon (distinct lists every value of the matching arrays).
        for (const m of await streams.distinct('manifests', { manifests: { $in: chunk } })) if (m && wanted.has(m)) found.add(m);
        for (const f of await streams.distinct('favicons', { favicons: { $in: chunk } })) if (f && wanted.has(f)) found.add(f);
        // A file of a manifest that a retained revision still uses.
        const hits = await manifests
          .aggregate<{ _id: string; hits: string[] }>([
            { $match: { blobs: { $in: chunk } } },
            { $project: { hits: { $setIntersection: ['$blobs', chunk] } } },
          ])
          .toArray();
        const listed = hits.map((h) => h._id);
        const retained = new Set<string>();
        for (let j = 0; j < listed.length; j += CHUNK) {
          const part = listed.slice(j, j + CHUNK);
          for (const m of await streams.distinct('manifests', { manifests: { $in: part } })) if (m) retained.add(m);
        }
        for (const h of hits) if (retained.has(h._id)) for (const blob of h.hits) found.add(blob);
        // A digest or the manifest of a deploy not deleted yet (spec §10: its uploads are kept while it is open).
        for (const h of await deployBlobs.distinct('h', { h: { $in: chunk } })) if (wanted.has(h)) found.add(h);
        for (const m of await deploys.distinct('manifest', { manifest: { $in: chunk } })) if (wanted.has(m)) found.add(m);
      }
      return found;
    },

    async tryLease(name, holder, ttlMs) {
      try {
        const taken = await leases.findOneAndUpdate(
          { _id: name, $or: [{ holder }, { $expr: { $lte: ['$expiresAt', '$$NOW'] } }] },
          [{ $set: { holder, expiresAt: { $add: ['$$NOW', ttlMs] } } }],
          { upsert: true, returnDocument: 'after' },
        );
        return taken?.holder === holder;
      } catch (err) {
        // The lease exists, is held by someone else and has not expired: the upsert's insert collided.
        if (isDuplicateKey(err)) return false;
        throw err;
      }
    },

    async releaseLease(name, holder) {
      await leases.deleteOne({ _id: name, holder });
    },

    async leaseHolder(name) {
      return (await leases.findOne({ _id: name }))?.holder;
    },

    async takeOverLease(name, gone, holder, ttlMs) {
      // Compare-and-set on the holder, on the server's clock like tryLease.
      const taken = await leases.updateOne({ _id: name, holder: gone }, [{ $set: { holder, expiresAt: { $add: ['$$NOW', ttlMs] } } }]);
      return taken.matchedCount === 1;
    },

    ...mongoDeploys(deploys, deployBlobs),

    async reset() {
      await streams.deleteMany({});
      await tree.deleteMany({});
      await checkpoints.deleteMany({});
      lister.forget();
    },

    async close() {
      await client.close();
    },
  };
}

/** The stored records of `ids`, a few thousand per query. */
async function loadStreams(streams: Collection<StreamDocument>, ids: readonly string[]): Promise<Map<string, StreamRecord>> {
  const loaded = new Map<string, StreamRecord>();
  for (let i = 0; i < ids.length; i += CHUNK) {
    const chunk = ids.slice(i, i + CHUNK);
    for (const d of await streams.find({ _id: { $in: chunk } }, { projection: { kind: 1, revision: 1, doc: 1 } }).toArray()) {
      loaded.set(d._id, { stream: d._id, kind: d.kind, revision: d.revision, doc: d.doc });
    }
  }
  return loaded;
}

/**
 * Moves the checkpoint only if nobody else did since this batch started (the version
 * counter is the compare-and-set token; `key` orders it against the documents' stamps).
 */
async function compareAndSetCheckpoint(
  checkpoints: Collection<CheckpointDocument>,
  before: CheckpointDocument | null,
  position: string,
  key: string,
): Promise<void> {
  if (before) {
    const moved = await checkpoints.updateOne({ _id: CHECKPOINT_ID, version: before.version }, { $set: { position, key }, $inc: { version: 1 } });
    if (moved.matchedCount === 1) return;
  } else {
    try {
      await checkpoints.insertOne({ _id: CHECKPOINT_ID, position, key, version: 1 });
      return;
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
  }
  throw new Error('projection checkpoint moved by another projector while this batch was applied; the batch was not committed as the checkpoint');
}

function isDuplicateKey(err: unknown): boolean {
  return err instanceof MongoServerError && err.code === DUPLICATE_KEY;
}

import { MongoBulkWriteError, MongoClient, MongoServerError, type AnyBulkWriteOperation, type Collection, type Db } from 'mongodb';
import type { Recorded } from '../../domain/events.ts';
import { batchFold, type StreamChange } from '../../projections/batch.ts';
import { withKeyUse, type ConnectionDoc, type KeyDoc, type OAuthClientDoc, type SiteDoc, type StreamRecord } from '../../projections/documents.ts';
import type { ProjectionBatch, ReadModel } from '../../projections/read-model.ts';
import {
  STREAM_INDEXES,
  siteListQuery,
  toStreamDocument,
  expiredUnusedClientsQuery,
  type CheckpointDocument,
  type LeaseDocument,
  type ManifestDocument,
  type StreamDocument,
} from './mongo-documents.ts';
import { deployCollections, mongoDeploys, type DeployBlobDocument, type DeployDocument } from './mongo-deploys.ts';

const CHECKPOINT_ID = 'projection';
/** Candidates per `$in` query: keeps each command far below MongoDB's 16 MB limit. */
const CHUNK = 5_000;
const DUPLICATE_KEY = 11000;
/** Upserts per bulk write: one round trip each, far below the 48 MB message and 100,000 operation limits. */
const WRITE_CHUNK = 2_000;

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
    await db.collection<StreamDocument>('streams').createIndexes(STREAM_INDEXES);
    await db.collection<ManifestDocument>('manifest_blobs').createIndex({ blobs: 1 }, { name: 'manifest_blobs' });
    const { deploys, deployBlobs } = await deployCollections(db);
    return mongoReadModel(client, db, deploys, deployBlobs);
  } catch (err) {
    await client.close();
    throw err;
  }
}

/** The database named in a MongoDB URL (`mongodb://h:27017/sites?…` → `sites`). */
export function databaseName(url: string): string {
  const match = /^mongodb(?:\+srv)?:\/\/[^/]*\/([^?]*)/.exec(url);
  const name = match?.[1] ? decodeURIComponent(match[1]) : '';
  return name || 'sites';
}

function mongoReadModel(client: MongoClient, db: Db, deploys: Collection<DeployDocument>, deployBlobs: Collection<DeployBlobDocument>): ReadModel {
  const streams = db.collection<StreamDocument>('streams');
  const manifests = db.collection<ManifestDocument>('manifest_blobs');
  const checkpoints = db.collection<CheckpointDocument>('checkpoints');
  const leases = db.collection<LeaseDocument>('leases');

  const docOf = async <T>(filter: Parameters<typeof streams.findOne>[0]): Promise<T | undefined> => {
    const found = await streams.findOne(filter, { projection: { doc: 1 } });
    return (found?.doc as T | null | undefined) ?? undefined;
  };
  const docsOf = async <T>(cursor: ReturnType<typeof streams.find>): Promise<T[]> =>
    (await cursor.project<{ doc: T }>({ _id: 0, doc: 1 }).toArray()).map((d) => d.doc);

  /** Key documents with the last use of their usage stream, in one round trip (`key_use` serves the join). */
  const keysOf = async (filter: Parameters<typeof streams.findOne>[0], sort?: Record<string, 1 | -1>): Promise<KeyDoc[]> => {
    const rows = await streams
      .aggregate<{ doc: KeyDoc; used?: string | null }>([
        { $match: filter },
        ...(sort ? [{ $sort: sort }] : []),
        { $lookup: { from: streams.collectionName, localField: 'keyId', foreignField: 'usedKeyId', as: 'use' } },
        { $project: { _id: 0, doc: 1, used: { $first: '$use.doc.lastUsedAt' } } },
      ])
      .toArray();
    return rows.map((r) => withKeyUse(r.doc, r.used));
  };

  const beginBatch = async (): Promise<ProjectionBatch> => {
    const before = await checkpoints.findOne({ _id: CHECKPOINT_ID });
    const fold = batchFold();
    return {
      from: before?.position,
      get streams() {
        return fold.streams;
      },
      async add(events) {
        fold.add(events, await loadStreams(streams, fold.missing(events)));
      },
      async commit(checkpoint) {
        // Documents first, then the checkpoint: a crash in between leaves documents ahead
        // of the checkpoint, which the revision guards make harmless when the events come again.
        await writeChanges(streams, fold.changes(), (before?.version ?? 0) + 1);
        await compareAndSetCheckpoint(checkpoints, before, checkpoint);
      },
    };
  };

  return {
    async checkpoint() {
      return (await checkpoints.findOne({ _id: CHECKPOINT_ID }))?.position;
    },

    async apply(events: readonly Recorded[], checkpoint: string) {
      const batch = await beginBatch();
      await batch.add(events);
      await batch.commit(checkpoint);
    },

    beginBatch,

    async streamRevision(stream) {
      // Documents are written before the checkpoint moves; one whose batch has not committed
      // yet does not count, so a command answers only once the checkpoint covers its events,
      // and caches keyed by the checkpoint (the listing, the site server) cannot miss them.
      const [found, at] = await Promise.all([
        streams.findOne({ _id: stream }, { projection: { revision: 1, committedAt: 1 } }),
        checkpoints.findOne({ _id: CHECKPOINT_ID }, { projection: { version: 1 } }),
      ]);
      if (!found) return -1;
      return found.committedAt !== undefined && found.committedAt > (at?.version ?? 0) ? -1 : found.revision;
    },

    getSite: (path) => docOf<SiteDoc>({ path }),

    async listSites(query) {
      const { filter, sort } = siteListQuery(query);
      // Filter and sort run in MongoDB; the port also wants every match (for the tree),
      // so the page is cut from that one sorted result rather than asked for twice.
      const all = await docsOf<SiteDoc>(streams.find(filter).sort(sort));
      return { page: all.slice(query.offset, query.offset + query.limit), count: all.length, all };
    },

    listQuarantined: () => docsOf<SiteDoc>(streams.find({ status: 'quarantined' }).sort({ deletedAt: -1, path: 1 })),

    getKey: async (id) => (await keysOf({ keyId: id }))[0],
    getKeyByTokenHash: async (tokenHash) => (await keysOf({ tokenHash }))[0],
    listKeys: () => keysOf({ keyId: { $exists: true } }, { keyId: 1 }),
    getConnection: (id) => docOf<ConnectionDoc>({ connectionId: id }),
    listConnections: () =>
      docsOf<ConnectionDoc>(streams.find({ connectionId: { $exists: true } }).sort({ createdAt: 1, connectionId: 1 })),
    getOAuthClient: (clientId) => docOf<OAuthClientDoc>({ clientId }),
    listExpiredUnusedOAuthClients: (by, limit) => {
      const { filter, sort } = expiredUnusedClientsQuery(by);
      return docsOf<OAuthClientDoc>(streams.find(filter).sort(sort).limit(limit));
    },

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

    ...mongoDeploys(deploys, deployBlobs),

    async reset() {
      await streams.deleteMany({});
      await checkpoints.deleteMany({});
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
 * Stores a batch's changes as unordered bulk writes of guarded upserts, one per changed
 * stream: MongoDB's counterpart of the SQLite transaction. A replacement applies only over
 * an older revision (or inserts a missing document), so a write repeated after a crash, or
 * raced by another projector, never moves a document backwards; unordered, the server
 * applies the writes of one command in any order and in parallel.
 */
async function writeChanges(streams: Collection<StreamDocument>, changes: readonly StreamChange[], committedAt: number): Promise<void> {
  for (let i = 0; i < changes.length; i += WRITE_CHUNK) {
    const writes: AnyBulkWriteOperation<StreamDocument>[] = changes.slice(i, i + WRITE_CHUNK).map(({ after }) => ({
      replaceOne: {
        filter: { _id: after.stream, revision: { $lt: after.revision } },
        replacement: { ...toStreamDocument(after), committedAt },
        upsert: true,
      },
    }));
    await guardedBulkWrite(streams, writes);
  }
}

/** Runs guarded upserts; a duplicate `_id` means the stored document is already newer, which is success. */
async function guardedBulkWrite(streams: Collection<StreamDocument>, writes: AnyBulkWriteOperation<StreamDocument>[]): Promise<void> {
  try {
    await streams.bulkWrite(writes, { ordered: false });
  } catch (err) {
    if (!(err instanceof MongoBulkWriteError)) throw err;
    const errors = Array.isArray(err.writeErrors) ? err.writeErrors : [err.writeErrors];
    const real = errors.filter((e) => !(e.code === DUPLICATE_KEY && /index: _id_ /.test(e.errmsg ?? '')));
    if (real.length > 0 || err.writeConcernError || errors.length === 0) throw err;
  }
}

/**
 * Moves the checkpoint only if nobody else did since this batch started (the version
 * counter is the compare-and-set token; positions are opaque and cannot be ordered here).
 */
async function compareAndSetCheckpoint(
  checkpoints: Collection<CheckpointDocument>,
  before: CheckpointDocument | null,
  position: string,
): Promise<void> {
  if (before) {
    const moved = await checkpoints.updateOne({ _id: CHECKPOINT_ID, version: before.version }, { $set: { position }, $inc: { version: 1 } });
    if (moved.matchedCount === 1) return;
  } else {
    try {
      await checkpoints.insertOne({ _id: CHECKPOINT_ID, position, version: 1 });
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

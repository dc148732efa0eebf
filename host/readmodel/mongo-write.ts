import { MongoBulkWriteError, type AnyBulkWriteOperation, type Collection } from 'mongodb';
import type { StreamChange } from '../../projections/batch.ts';
import { toStreamDocument, type StreamDocument } from './mongo-documents.ts';

export const CHECKPOINT_ID = 'projection';
const DUPLICATE_KEY = 11000;
/** Upserts per bulk write: one round trip each, far below the 48 MB message and 100,000 operation limits. */
const WRITE_CHUNK = 2_000;

type Writes = Pick<Collection<StreamDocument>, 'bulkWrite'>;
type Replace = { filter: { _id: string; revision: { $lt: number } }; replacement: StreamDocument; upsert: boolean };

/**
 * Stores a batch's changes as unordered bulk writes of guarded upserts, one per changed
 * stream: MongoDB's counterpart of the SQLite transaction. A replacement applies only over
 * an older revision (or inserts a missing document), so a write repeated after a crash, or
 * raced by another projector, never moves a document backwards. Each document is stamped
 * (`at`) with the position of the event it was written from (`stampOf`).
 *
 * An upsert whose filter found nothing inserts, and the insert fails on `_id` when the
 * document exists: either it is at or past this revision (the guard refused it), or another
 * projector inserted the same missing document between this write's look and its insert (a
 * lease overlap), possibly at a lower revision. The duplicates are written again without
 * upsert: the document exists now, so the guard alone decides, and the higher revision wins
 * whichever insert came first.
 */
export async function writeChanges(streams: Writes, changes: readonly StreamChange[], stampOf: (stream: string) => string): Promise<void> {
  for (let i = 0; i < changes.length; i += WRITE_CHUNK) {
    const replaces: Replace[] = changes.slice(i, i + WRITE_CHUNK).map(({ after }) => ({
      filter: { _id: after.stream, revision: { $lt: after.revision } },
      replacement: { ...toStreamDocument(after), at: stampOf(after.stream) },
      upsert: true,
    }));
    const collided = await bulkReplace(streams, replaces);
    if (collided.length > 0) {
      const again = await bulkReplace(streams, collided.map((r) => ({ ...r, upsert: false })));
      if (again.length > 0) throw new Error(`a guarded replacement without upsert failed on a duplicate _id (${again.length})`);
    }
  }
}

/** Runs the replacements; returns those whose insert failed on a duplicate `_id` (any other failure throws). */
async function bulkReplace(streams: Writes, replaces: readonly Replace[]): Promise<Replace[]> {
  const ops: AnyBulkWriteOperation<StreamDocument>[] = replaces.map((replaceOne) => ({ replaceOne }));
  try {
    await streams.bulkWrite(ops, { ordered: false });
    return [];
  } catch (err) {
    if (!(err instanceof MongoBulkWriteError)) throw err;
    const errors = Array.isArray(err.writeErrors) ? err.writeErrors : [err.writeErrors];
    const duplicates = errors.filter((e) => e.code === DUPLICATE_KEY && /index: _id_ /.test(e.errmsg ?? ''));
    if (duplicates.length !== errors.length || err.writeConcernError || errors.length === 0) throw err;
    return duplicates.map((e) => replaces[e.index]!);
  }
}

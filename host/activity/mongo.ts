import { MongoClient, MongoServerError, type AnyBulkWriteOperation, type Collection, type Filter } from 'mongodb';
import type { Recorded } from '../../domain/events.ts';
import { activityRows, type Activity, type ActivityFilter, type ActivityPage, type ActivityStore } from '../../projections/activity.ts';
import { databaseName } from '../readmodel/mongo.ts';
import { timeBounds } from './query-plan.ts';

/** One entry; `_id` is its position key, so inserting an event twice is a no-op. */
type ActivityDocument = {
  _id: string;
  type: string;
  atKey: string;
  actorKey: string;
  person?: string;
  scopes: string[];
  entry: Activity;
};
type CheckpointDocument = { _id: string; position: string; atKey?: string; version: number };

const CHECKPOINT_ID = 'activity';
const DUPLICATE_KEY = 11000;

/**
 * The MongoDB activity store, in the read model's database: collection `activity`, its
 * checkpoint in `checkpoints` (`_id: "activity"`, compare-and-set like the projection's).
 * Each filter has an index ending in `_id` (the position key), and a type list is one
 * `$in` that the server merges in key order (SORT_MERGE), so a page reads about `limit`
 * index entries per filter value whatever the collection's size.
 */
export async function openMongoActivityStore(url: string): Promise<ActivityStore> {
  const client = new MongoClient(url, { ignoreUndefined: true, writeConcern: { w: 'majority' }, appName: 'sites-activity' });
  await client.connect();
  try {
    const db = client.db(databaseName(url));
    const activity = db.collection<ActivityDocument>('activity');
    await activity.createIndexes([
      { key: { type: 1, _id: -1 }, name: 'activity_by_type' },
      { key: { actorKey: 1, _id: -1 }, name: 'activity_by_actor' },
      { key: { person: 1, _id: -1 }, name: 'activity_by_person', partialFilterExpression: { person: { $exists: true } } },
      { key: { scopes: 1, _id: -1 }, name: 'activity_by_scope' },
      { key: { atKey: 1, _id: 1 }, name: 'activity_by_time' },
    ]);
    return mongoActivity(client, activity, db.collection<CheckpointDocument>('checkpoints'));
  } catch (err) {
    await client.close();
    throw err;
  }
}

function mongoActivity(client: MongoClient, activity: Collection<ActivityDocument>, checkpoints: Collection<CheckpointDocument>): ActivityStore {
  const seekKey = async (filter: Filter<ActivityDocument>, dir: 1 | -1): Promise<string | undefined> =>
    (await activity.find(filter, { projection: { _id: 1 } }).sort({ atKey: dir, _id: dir }).limit(1).next())?._id;

  return {
    async beginBatch() {
      const before = await checkpoints.findOne({ _id: CHECKPOINT_ID });
      let lastAtKey = before?.atKey;
      return {
        from: before?.position,
        streams: 0,
        async add(events: readonly Recorded[]) {
          const { rows, lastAtKey: next } = activityRows(events, lastAtKey);
          lastAtKey = next;
          if (rows.length === 0) return;
          const ops: AnyBulkWriteOperation<ActivityDocument>[] = rows.map((r) => ({
            updateOne: {
              filter: { _id: r.key },
              update: {
                $setOnInsert: { type: r.entry.type, atKey: r.atKey, actorKey: r.actorKey, ...(r.person !== undefined ? { person: r.person } : {}), scopes: [...r.scopes], entry: r.entry },
              },
              upsert: true,
            },
          }));
          await activity.bulkWrite(ops, { ordered: false });
        },
        async commit(checkpoint: string) {
          // Entries first, then the checkpoint: entries ahead of it come again and change nothing.
          if (before) {
            const moved = await checkpoints.updateOne({ _id: CHECKPOINT_ID, version: before.version }, { $set: { position: checkpoint, atKey: lastAtKey }, $inc: { version: 1 } });
            if (moved.matchedCount === 1) return;
          } else {
            try {
              await checkpoints.insertOne({ _id: CHECKPOINT_ID, position: checkpoint, ...(lastAtKey !== undefined ? { atKey: lastAtKey } : {}), version: 1 });
              return;
            } catch (err) {
              if (!(err instanceof MongoServerError && err.code === DUPLICATE_KEY)) throw err;
            }
          }
          throw new Error('activity checkpoint moved by another projector while this batch was built; the batch was not committed');
        },
      };
    },
    async checkpoint() {
      return (await checkpoints.findOne({ _id: CHECKPOINT_ID }))?.position;
    },
    async query(filter: ActivityFilter, page: ActivityPage) {
      const since = filter.since !== undefined ? await seekKey({ atKey: { $gte: filter.since } }, 1) : undefined;
      const until = filter.until !== undefined ? await seekKey({ atKey: { $lte: filter.until } }, -1) : undefined;
      const bounds = timeBounds(filter, { first: () => since, last: () => until });
      if (bounds === 'empty') return [];
      const query: Filter<ActivityDocument> = {};
      if (filter.types && filter.types.length > 0) query.type = filter.types.length === 1 ? filter.types[0]! : { $in: [...filter.types] };
      if (filter.actor?.by === 'actor') query.actorKey = filter.actor.key;
      else if (filter.actor?.by === 'person') query.person = filter.actor.name;
      if (filter.site) query.scopes = filter.site;
      const desc = page.order === 'desc';
      const range: Record<string, string> = {};
      if (page.after !== undefined) range[desc ? '$lt' : '$gt'] = page.after;
      if (bounds.from !== undefined) range.$gte = bounds.from;
      if (bounds.to !== undefined) range.$lte = bounds.to;
      if (Object.keys(range).length > 0) query._id = range;
      const docs = await activity
        .find(query, { projection: { entry: 1 } })
        .sort({ _id: desc ? -1 : 1 })
        .limit(page.limit)
        .toArray();
      return docs.map((d) => d.entry);
    },
    async close() {
      await client.close();
    },
  };
}

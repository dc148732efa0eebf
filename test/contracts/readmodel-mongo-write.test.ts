/**
 * The MongoDB read model's write protocol (mongo-write.ts), checked without a server
 * against a scripted `streams` collection that answers `bulkWrite` the way MongoDB does for
 * the one operation the protocol sends (a guarded `replaceOne`, with or without upsert):
 * a filter that matches replaces; one that does not inserts when upserting, and that insert
 * fails on a duplicate `_id` (code 11000, "index: _id_") when the document exists. The race
 * the protocol must survive — another projector inserting the same missing document
 * between this write's look and its insert — is scripted as exactly that.
 * The contract suite runs the same protocol against a real server (SITES_MONGO_URL).
 */
import { BSON, MongoBulkWriteError, type AnyBulkWriteOperation, type Collection } from 'mongodb';
import { describe, expect, it } from 'vitest';
import type { StreamRecord } from '../../projections/documents.ts';
import type { StreamDocument } from '../../host/readmodel/mongo-documents.ts';
import { literalPattern, siteListQuery } from '../../host/readmodel/mongo-queries.ts';
import { writeChanges } from '../../host/readmodel/mongo-write.ts';

type Stored = Map<string, StreamDocument>;
type ReplaceOp = { filter: { _id: string; revision: { $lt: number } }; replacement: StreamDocument; upsert?: boolean };

/** A collection holding `stored`; `beforeInsert(id)` runs when an upsert found nothing and is about to insert (a racing writer). */
function scripted(stored: Stored, beforeInsert: (id: string) => void = () => undefined) {
  const calls: { id: string; upsert: boolean }[] = [];
  const collection = {
    async bulkWrite(ops: AnyBulkWriteOperation<StreamDocument>[]) {
      const writeErrors: { index: number; code: number; errmsg: string }[] = [];
      ops.forEach((op, index) => {
        const { filter, replacement, upsert = false } = (op as { replaceOne: ReplaceOp }).replaceOne;
        calls.push({ id: filter._id, upsert });
        const doc = stored.get(filter._id);
        if (doc && doc.revision < filter.revision.$lt) return void stored.set(filter._id, replacement);
        if (!upsert) return;
        if (!doc) beforeInsert(filter._id);
        if (stored.has(filter._id)) {
          writeErrors.push({ index, code: 11000, errmsg: `E11000 duplicate key error collection: sites.streams index: _id_ dup key: { _id: "${filter._id}" }` });
        } else stored.set(filter._id, replacement);
      });
      if (writeErrors.length > 0) throw new MongoBulkWriteError({ message: 'E11000 duplicate key error', code: 11000, writeErrors } as never, {} as never);
      return {} as never;
    },
  };
  return { collection: collection as unknown as Pick<Collection<StreamDocument>, 'bulkWrite'>, calls };
}

const record = (stream: string, revision: number): StreamRecord => ({ stream, kind: 'sequence', revision, doc: null });
const change = (stream: string, revision: number) => ({ before: undefined, after: record(stream, revision) });
const stamp = (stream: string) => `at-${stream}`;

describe('MongoDB projection writes', () => {
  it('inserts missing documents and replaces older ones, never newer ones', async () => {
    const stored: Stored = new Map([
      ['older', { _id: 'older', kind: 'sequence', revision: 1, doc: null, at: 'x' }],
      ['newer', { _id: 'newer', kind: 'sequence', revision: 9, doc: null, at: 'x' }],
    ]);
    const { collection } = scripted(stored);
    await writeChanges(collection, [change('missing', 2), change('older', 3), change('newer', 4)], stamp);
    expect(stored.get('missing')).toMatchObject({ revision: 2, at: 'at-missing' });
    expect(stored.get('older')).toMatchObject({ revision: 3, at: 'at-older' });
    expect(stored.get('newer')).toMatchObject({ revision: 9, at: 'x' }); // the duplicate insert meant "already newer"
  });

  it('keeps the higher revision when another projector inserts the same missing document at a lower one first', async () => {
    const stored: Stored = new Map();
    // Between this upsert's look (nothing there) and its insert, a projector whose lease
    // overlapped inserts revision 3 of the same streams.
    const { collection, calls } = scripted(stored, (id) => stored.set(id, { _id: id, kind: 'sequence', revision: 3, doc: null, at: 'theirs' }));
    await writeChanges(collection, [change('a', 5), change('b', 7)], stamp);
    expect(stored.get('a')).toMatchObject({ revision: 5, at: 'at-a' });
    expect(stored.get('b')).toMatchObject({ revision: 7, at: 'at-b' });
    // The collided writes went again, as guarded replacements of documents that now exist.
    expect(calls.filter((c) => !c.upsert).map((c) => c.id)).toEqual(['a', 'b']);
  });

  it('leaves a document the racing projector inserted at a higher revision', async () => {
    const stored: Stored = new Map();
    const { collection } = scripted(stored, (id) => stored.set(id, { _id: id, kind: 'sequence', revision: 8, doc: null, at: 'theirs' }));
    await writeChanges(collection, [change('a', 5)], stamp);
    expect(stored.get('a')).toMatchObject({ revision: 8, at: 'theirs' });
  });
});

describe('MongoDB search text', () => {
  it('sends a NUL or any control character in q as an escape inside the regex, which BSON can carry', () => {
    for (const q of ['a\u0000b', 'tab\there', '\u001f', 'del\u007f']) {
      const { filter } = siteListQuery({ q, sort: 'date', includeHidden: false, limit: 50, offset: 0 });
      const re = (filter.$or as { titleLc: RegExp }[])[0]!.titleLc;
      expect(re.source).not.toMatch(/[\u0000-\u001f\u007f]/);
      expect(() => BSON.serialize(filter)).not.toThrow();
      expect(re.test(q.toLowerCase())).toBe(true);
    }
    // What the adapter sent before: the raw character inside the pattern, which js-bson refuses.
    expect(() => BSON.serialize({ re: new RegExp('a\u0000b') })).toThrow();
    expect(literalPattern('a.b(c)*')).toBe('a\\.b\\(c\\)\\*');
  });
});

describe('positions as the MongoDB read model orders them', () => {
  it("orders EventStoreDB's and the embedded log's positions as the logs do, with the one key every store uses", async () => {
    const fc = (await import('fast-check')).default;
    const { comparePositions, encodePosition } = await import('../../host/eventstore/esdb-position.ts');
    const { positionKey } = await import('../../projections/positions.ts');
    const sign = (n: number) => Math.sign(n);
    const u64 = fc.bigInt({ min: 0n, max: 2n ** 64n - 1n });
    fc.assert(
      fc.property(u64, u64, u64, u64, (c1, p1, c2, p2) => {
        const a = { commit: c1, prepare: p1 };
        const b = { commit: c2, prepare: p2 };
        const [ka, kb] = [positionKey(encodePosition(a)), positionKey(encodePosition(b))];
        return (ka < kb ? -1 : ka > kb ? 1 : 0) === sign(comparePositions(a, b));
      }),
    );
    const n = fc.integer({ min: 0, max: 999_999_999_999_999 }); // the embedded log's positions: up to 15 digits
    fc.assert(fc.property(n, n, (x, y) => (positionKey(String(x)) < positionKey(String(y))) === (x < y)));
    expect(() => positionKey('1/2/3')).toThrow();
    expect(() => positionKey('-1')).toThrow();
  });

  it('a stamp or checkpoint key written with the earlier 15-digit key of the embedded log compares like a new one', async () => {
    const fc = (await import('fast-check')).default;
    const { stampCommitted } = await import('../../host/readmodel/mongo-documents.ts');
    const { positionKey } = await import('../../projections/positions.ts');
    const old = (x: number) => String(x).padStart(15, '0'); // what the read model stored before
    const n = fc.integer({ min: 0, max: 999_999_999_999_999 });
    fc.assert(
      fc.property(n, n, (at, checkpoint) => {
        const expected = at <= checkpoint;
        return (
          stampCommitted(old(at), positionKey(String(checkpoint))) === expected &&
          stampCommitted(positionKey(String(at)), old(checkpoint)) === expected &&
          stampCommitted(old(at), old(checkpoint)) === expected &&
          stampCommitted(positionKey(String(at)), positionKey(String(checkpoint))) === expected
        );
      }),
    );
    expect(stampCommitted(positionKey('5'), undefined)).toBe(false);
  });
});

import type { Collection } from 'mongodb';
import type { SiteDoc } from '../../projections/documents.ts';
import type { SiteListResult, SiteQuery } from '../../projections/read-model.ts';
import type { StreamDocument } from './mongo-documents.ts';
import { SITE_REF_PROJECTION, siteByPathQuery, siteListQuery } from './mongo-queries.ts';

/** Documents fetched per `$in` query. */
const CHUNK = 2_000;
/** Cached documents kept beyond those of the largest listing, before the ones no listing named are let go. */
const SLACK = 20_000;

type Ref = { path: string; revision: number };

/**
 * `listSites` on MongoDB. The port returns every match (the API arranges them as the group
 * tree), so a listing is one index scan in the requested order that reads only each match's
 * path and revision (the whole answer of the index when there is no filter but hidden: no
 * document is fetched), and the documents come from a cache of this process keyed by path
 * and revision: a listing after a write fetches the documents that changed since this
 * process last listed, not every match. A document's content at a revision never changes,
 * so the cache is exact across instances; the API keeps its JSON by document object, so
 * handing out the same object keeps that serialization too.
 *
 * The page is cut from the same ordered list rather than asked for again with skip/limit:
 * the count and the tree need every match anyway.
 */
export function siteLister(streams: Collection<StreamDocument>) {
  const cache = new Map<string, { revision: number; doc: SiteDoc | null }>();
  let largest = 0;

  async function fetch(paths: readonly string[]): Promise<void> {
    for (let i = 0; i < paths.length; i += CHUNK) {
      const chunk = paths.slice(i, i + CHUNK);
      const found = streams.find<{ path: string; revision: number; doc: SiteDoc | null }>(
        { path: { $in: chunk } },
        { projection: { _id: 0, path: 1, revision: 1, doc: 1 }, hint: siteByPathQuery('').hint },
      );
      for await (const d of found) cache.set(d.path, { revision: d.revision, doc: d.doc });
    }
  }

  /** Lets go of documents no listing named when the cache holds far more than the largest listing. */
  function trim(refs: readonly Ref[]): void {
    largest = Math.max(largest, refs.length);
    if (cache.size <= largest + SLACK) return;
    const named = new Set(refs.map((r) => r.path));
    for (const path of cache.keys()) if (!named.has(path)) cache.delete(path);
  }

  return {
    async list(query: SiteQuery): Promise<SiteListResult> {
      const spec = siteListQuery(query);
      const refs = (await streams
        .find(spec.filter, { projection: SITE_REF_PROJECTION, hint: spec.hint, ...(spec.sort ? { sort: spec.sort } : {}) })
        .toArray()) as unknown as Ref[];
      await fetch(refs.filter((r) => cache.get(r.path)?.revision !== r.revision).map((r) => r.path));
      // A document that changed between the two reads is shown as fetched, if it is still live.
      const all: SiteDoc[] = [];
      for (const r of refs) {
        const doc = cache.get(r.path)?.doc;
        if (doc && doc.status === 'live') all.push(doc);
      }
      trim(refs);
      return { page: all.slice(query.offset, query.offset + query.limit), count: all.length, all };
    },
    /** After a reset: nothing cached may be reused (revisions start again). */
    forget(): void {
      cache.clear();
      largest = 0;
    },
  };
}

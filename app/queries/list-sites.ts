import { createHash } from 'node:crypto';
import { brotliCompressSync, constants, gunzipSync } from 'node:zlib';
import type { Identity } from '../../domain/auth.ts';
import type { SiteQuery } from '../../projections/queries.ts';
import { seesHidden } from '../authorize.ts';
import type { SiteQueryParams } from '../contract/site-query.ts';
import type { AppDeps } from '../deps.ts';
import { compressed, gzipOf, stored } from './gzip-segments.ts';

/** The encodings a listing is answered in: gzip is how it is kept; the others are made from it. */
export type ListingCoding = 'gzip' | 'br' | 'identity';

/**
 * A `GET /api/sites` answer: `tag` names its bytes (a strong validator: a digest of the
 * gzip body, from which the other encodings are made), so a client that holds it is
 * answered 304, and a reader's tag moves only when that reader's own answer changed: a
 * change to a site the reader does not see (a hidden one) leaves it as it was. `body`
 * makes or finds the bytes in an encoding. Both are kept by the listing's version; the
 * route adds the coding to the tag.
 */
export type ListingAnswer = {
  tag(): Promise<string>;
  body(coding: ListingCoding): Promise<Buffer>;
};

/**
 * `GET /api/sites` (spec §5): the page, the group tree of every match and the count, as the
 * bytes of a `SitesResponse`. Anyone signed in; `hidden=true` counts for admins only.
 *
 * The answer depends on the normalized query (hidden sites are in it for admins who asked,
 * never otherwise, whoever asks), on the site URLs and on whether the reader is an admin
 * (`updated_by`), and on the read model only through what the listing's version covers
 * (`Queries.listingVersion`), so bodies are kept by all of these and served while the
 * version stays (SiteListCache says why that is exact).
 *
 * Both kinds of listing are gzip assembled from compressed pieces, and the other encodings
 * are made from it. The unfiltered listing's tree (every site) comes from the instance's copy
 * of the group tree (ListingTree), whose pieces are re-made only where a site changed: after
 * a write, it costs the changed group's chunk and the page, not the sites. A group alone
 * is that group's part of the same tree. Any other filter's comes from its matches'
 * addresses, kept per filter and brought up to date from the changed sites (FilteredTrees),
 * in chunks kept by their sites and revisions: after a write, it costs arranging its matches
 * and the chunk of the changed site if that matches, not a read, a serialization or a
 * compression per match.
 */
export async function listSites(deps: AppDeps, identity: Identity, input: SiteQueryParams): Promise<ListingAnswer> {
  const admin = seesHidden(identity);
  const query = siteQuery(input, admin);
  const key = JSON.stringify([query, deps.shapes.probe(), admin]);
  const version = await deps.queries.listingVersion();
  const read = () => deps.queries.listingVersion();
  const filtered = query.q !== undefined || query.tag !== undefined || query.group !== undefined;
  const gzip = (): Promise<Buffer> => deps.listings.answer(read, `${key}|gzip`, () => (filtered ? filteredGzip(deps, identity, query) : unfiltered(deps, identity, query)), version);
  const whole = (): Promise<Buffer> => deps.listings.answer(read, `${key}|identity`, async () => gunzipSync(await gzip()), version);
  return {
    async tag() {
      const digest = await deps.listings.answer(read, `${key}|tag`, async () => Buffer.from(createHash('sha256').update(await gzip()).digest('base64url').slice(0, 22)), version);
      return digest.toString();
    },
    body(coding) {
      switch (coding) {
        case 'gzip':
          return gzip();
        case 'identity':
          return whole();
        case 'br':
          return deps.listings.answer(read, `${key}|br`, async () => brotliCompressSync(await whole(), { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } }), version);
        default: {
          const never: never = coding;
          return never;
        }
      }
    },
  };
}

/** The unfiltered listing, gzip-compressed: the page made now, the tree from the instance's pieces. */
async function unfiltered(deps: AppDeps, identity: Identity, query: SiteQuery): Promise<Buffer> {
  const [page] = await Promise.all([deps.queries.sitePage(query), deps.listingTree.sync()]);
  const variant = { hidden: query.includeHidden, admin: seesHidden(identity) };
  const head = deps.shapes.pageBytes(page, identity);
  const tree = await deps.listingTree.segments(variant, deps.shapes.probe());
  return gzipOf([compressed(head), ...tree, stored(Buffer.from(`,"count":${deps.listingTree.count(variant)}}`))]);
}

/**
 * A filtered listing, gzip-compressed: the page made now; the tree of a group alone from the
 * whole tree's kept pieces (no read of its sites), any other from the kept chunks of its matches.
 */
async function filteredGzip(deps: AppDeps, identity: Identity, query: SiteQuery): Promise<Buffer> {
  const variant = { hidden: query.includeHidden, admin: seesHidden(identity) };
  const probe = deps.shapes.probe();
  const groupAlone = query.group !== undefined && query.q === undefined && query.tag === undefined;
  const [page, group] = await Promise.all([
    deps.queries.sitePage(query),
    groupAlone ? deps.listingTree.sync().then(() => deps.listingTree.groupSegments(query.group!, variant, probe)) : undefined,
  ]);
  const head = compressed(deps.shapes.pageBytes(page, identity));
  if (group) return gzipOf([head, ...group.segments, stored(Buffer.from(`,"count":${group.count}}`))]);
  const matches = await deps.filteredTrees.matches(query);
  const tree = await deps.filteredTrees.segments(matches, variant.admin, probe);
  return gzipOf([head, ...tree, stored(Buffer.from(`,"count":${matches.count}}`))]);
}

/** The read model's query for these parameters: `hidden=true` is honoured for admins only; for everyone else it is ignored. */
export function siteQuery(input: SiteQueryParams, admin: boolean): SiteQuery {
  const { q, tag, group, sort, hidden, limit, offset } = input;
  return {
    ...(q ? { q } : {}),
    ...(tag ? { tag } : {}),
    ...(group ? { group } : {}),
    sort,
    includeHidden: hidden && admin,
    limit,
    offset,
  };
}

import type { Identity } from '../../domain/auth.ts';
import type { SiteQuery } from '../../projections/queries.ts';
import { seesHidden } from '../authorize.ts';
import type { SiteQueryParams } from '../contract/site-query.ts';
import type { AppDeps } from '../deps.ts';

/**
 * `GET /api/sites` (spec §5): the page, the group tree of every match and the count, as the
 * JSON bytes of a `SitesResponse`. Anyone signed in; `hidden=true` counts for admins only.
 *
 * Bodies are kept by query while the read model's checkpoint stays (SiteListCache says why
 * that is exact). The answer depends on the normalized query (hidden sites are in it for
 * admins who asked, never otherwise, whoever asks), on the site URLs and on whether the
 * reader is an admin (`updated_by`); the whole query is the key, so a filter added to it
 * later is part of the key too.
 */
export async function listSites(deps: AppDeps, identity: Identity, input: SiteQueryParams): Promise<Buffer> {
  const query = siteQuery(input, seesHidden(identity));
  const key = JSON.stringify([query, deps.shapes.probe(), seesHidden(identity)]);
  return deps.listings.answer(() => deps.queries.checkpoint(), key, async () => deps.shapes.listBody(await deps.queries.listSites(query), identity));
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

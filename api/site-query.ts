import type { SiteQuery } from '../projections/read-model.ts';
import { parseQuery } from './schemas/parse.ts';
import { SiteQueryParams } from './schemas/site-query.ts';

export { DEFAULT_LIMIT, MAX_LIMIT } from './schemas/site-query.ts';

/** Validates `GET /api/sites` parameters with their schema and applies the spec's defaults (§5). */
export function parseSiteQuery(query: Record<string, string | string[] | undefined>, isAdmin: boolean): SiteQuery {
  const { q, tag, group, sort, hidden, limit, offset } = parseQuery(SiteQueryParams, query);
  return {
    ...(q ? { q } : {}),
    ...(tag ? { tag } : {}),
    ...(group ? { group } : {}),
    sort,
    // hidden=true is honoured for admins only; for everyone else it is ignored.
    includeHidden: hidden && isAdmin,
    limit,
    offset,
  };
}

import type { SiteQuery } from '../../projections/read-model.ts';
import { normalizedSearch } from './derive.ts';

const ORDER: Record<SiteQuery['sort'], string> = {
  // Sites without a date last, then newest first; path keeps paging stable. Matches index sites_by_date.
  date: `s.undated ASC, s.date DESC, s.updated_at DESC, s.path ASC`,
  title: `s.title_lc ASC, s.path ASC`,
  slug: `s.slug ASC, s.path ASC`,
};

/**
 * The conditions of `listSites` on `sites s`, in one of two forms of the same selection: for
 * a page read in an index's order until it is full (`ordered`), the tag conditions are asked
 * per site read (a correlated EXISTS: a few hundred key lookups); for every match, once for
 * the query (a list subquery: one read of the tag index), and `status`, which every live site
 * shares, is kept from leading the plan (`+`), so the tag's or the group's index leads.
 */
function siteFilter(query: SiteQuery, ordered: boolean): { where: string[]; params: Record<string, string> } {
  const tagged = (test: string) => (ordered ? `EXISTS (SELECT 1 FROM site_tags t WHERE t.stream = s.stream AND ${test})` : `s.stream IN (SELECT t.stream FROM site_tags t WHERE ${test})`);
  const where = [`${ordered ? '' : '+'}s.status = 'live'`];
  const params: Record<string, string> = {};
  if (!query.includeHidden) where.push('s.hidden = 0');
  if (query.tag !== undefined) {
    params.tag = query.tag;
    where.push(tagged('t.tag = @tag'));
  }
  if (query.group) {
    // `grp` in ['G/', 'G0') is every group beneath G ('0' follows '/'), as an index range.
    params.group = query.group;
    params.groupLo = `${query.group}/`;
    params.groupHi = `${query.group}0`;
    where.push('(s.grp = @group OR (s.grp >= @groupLo AND s.grp < @groupHi) OR s.path = @group)');
  }
  const q = normalizedSearch(query.q);
  if (q !== undefined) {
    params.q = q;
    where.push(`(instr(s.title_lc, @q) > 0 OR instr(s.slug, @q) > 0 OR instr(s.grp, @q) > 0 OR instr(s.desc_lc, @q) > 0 OR ${tagged('instr(t.tag_lc, @q) > 0')})`);
  }
  return { where, params };
}

/**
 * The SQL for `listSites`: every filter and the sort run in SQLite; the caller pages the
 * result, because the port also returns every match (for the group tree), so one query
 * serves the page, the count and the tree. It returns (stream, revision) pairs: the adapter
 * keeps parsed documents by revision and reads the JSON only of those it has not seen.
 */
export function siteListSql(query: SiteQuery): { sql: string; params: Record<string, string> } {
  const { where, params } = siteFilter(query, true);
  return { sql: `SELECT s.stream, s.revision FROM sites s WHERE ${where.join(' AND ')} ORDER BY ${ORDER[query.sort]}`, params };
}

/**
 * The SQL for `siteMatches`: the same selection in no order, led by the filter's own index
 * (the group's range and path, the tag's entries): a filtered listing reads its matches'
 * rows, not every site's. A search alone reads every row. With `paths`, those sites' rows
 * alone (by the unique index on `path`).
 */
export function siteMatchSql(query: SiteQuery, paths?: readonly string[]): { sql: string; params: Record<string, string> } {
  const { where, params } = siteFilter(query, false);
  if (paths) {
    params.paths = JSON.stringify(paths);
    where.unshift('s.path IN (SELECT value FROM json_each(@paths))');
  }
  return { sql: `SELECT s.path, s.grp AS "group", s.slug, s.revision FROM sites s WHERE ${where.join(' AND ')}`, params };
}

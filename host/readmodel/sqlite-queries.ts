import type { SiteQuery } from '../../projections/read-model.ts';
import { normalizedSearch } from './derive.ts';

const ORDER: Record<SiteQuery['sort'], string> = {
  // Sites without a date last, then newest first; path keeps paging stable. Matches index sites_by_date.
  date: `s.undated ASC, s.date DESC, s.updated_at DESC, s.path ASC`,
  title: `s.title_lc ASC, s.path ASC`,
  slug: `s.slug ASC, s.path ASC`,
};

/**
 * The conditions of `listSites` on `sites s`, in forms of the same selection for two kinds of
 * read. One that visits few rows (a page filled in an index's order, given sites) asks the
 * tag conditions per row (`tagsPerRow`: a correlated EXISTS, a key lookup each); one that
 * visits every match asks them once for the query (a list subquery: one read of the tag
 * table). `statusLeads: false` keeps the planner off the indexes that begin with `status`,
 * which every live site shares (`+`), so the tag's, the group's or the path's index leads.
 */
function siteFilter(query: SiteQuery, form: { readonly tagsPerRow: boolean; readonly statusLeads: boolean }): { where: string[]; params: Record<string, string> } {
  const tagged = (test: string) => (form.tagsPerRow ? `EXISTS (SELECT 1 FROM site_tags t WHERE t.stream = s.stream AND ${test})` : `s.stream IN (SELECT t.stream FROM site_tags t WHERE ${test})`);
  const where = [`${form.statusLeads ? '' : '+'}s.status = 'live'`];
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
  const { where, params } = siteFilter(query, { tagsPerRow: true, statusLeads: true });
  return { sql: `SELECT s.stream, s.revision FROM sites s WHERE ${where.join(' AND ')} ORDER BY ${ORDER[query.sort]}`, params };
}

/**
 * The SQL for `siteMatches`: the same selection in no order, led by the filter's own index
 * (the group's range and path, the tag's entries): a filtered listing reads its matches'
 * rows, not every site's. A search alone reads every row. With `paths`, those sites' rows
 * alone (by the unique index on `path`).
 */
export function siteMatchSql(query: SiteQuery, paths?: readonly string[]): { sql: string; params: Record<string, string> } {
  const { where, params } = siteFilter(query, { tagsPerRow: paths !== undefined, statusLeads: false });
  if (paths) {
    params.paths = JSON.stringify(paths);
    where.unshift('s.path IN (SELECT value FROM json_each(@paths))');
  }
  return { sql: `SELECT s.path, s.grp AS "group", s.slug, s.revision FROM sites s WHERE ${where.join(' AND ')}`, params };
}

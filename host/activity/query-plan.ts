import type { Activity, ActivityFilter, ActivityPage } from '../../projections/activity.ts';
import { positionKey } from '../../projections/positions.ts';

/** A time range turned into a range of keys (inclusive); undefined ends are open. */
export type TimeBounds = { readonly from?: string; readonly to?: string };

/**
 * `since`/`until` as keys: the first entry whose running time (`atKey`) is at or after
 * `since`, the last one at or before `until`. `atKey` never decreases along the log, so
 * every entry between them is in the range and none outside is. 'empty': nothing can match.
 */
export function timeBounds(
  filter: ActivityFilter,
  seek: { first: (since: string) => string | undefined; last: (until: string) => string | undefined },
): TimeBounds | 'empty' {
  let from: string | undefined;
  let to: string | undefined;
  if (filter.since !== undefined) {
    from = seek.first(filter.since);
    if (from === undefined) return 'empty';
  }
  if (filter.until !== undefined) {
    to = seek.last(filter.until);
    if (to === undefined) return 'empty';
  }
  if (from !== undefined && to !== undefined && from > to) return 'empty';
  return { ...(from !== undefined ? { from } : {}), ...(to !== undefined ? { to } : {}) };
}

/** Merges pages read in the same order (one per type) into one page of `page.limit`. */
export function mergePages(pages: readonly Activity[][], page: ActivityPage): Activity[] {
  const keyed = pages.flat().map((entry) => ({ entry, key: positionKey(entry.id) }));
  keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0) * (page.order === 'desc' ? -1 : 1));
  return keyed.slice(0, page.limit).map((k) => k.entry);
}

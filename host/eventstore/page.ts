/**
 * Cuts one `readAll` page out of `items`, which the adapter read with one item of
 * look-ahead (up to `limit + 1`). The events of one append share a commit key; an append
 * cut by the limit is left whole for the next page, unless it alone fills the page, in
 * which case it is split (the next page resumes right after the last event handed out).
 */
export function pageWithoutSplit<T>(items: readonly T[], limit: number, commitOf: (item: T) => string | number): T[] {
  if (items.length <= limit) return [...items];
  const page = items.slice(0, limit);
  const cut = commitOf(items[limit]);
  if (commitOf(page[limit - 1]) !== cut) return page;
  const kept = page.filter((item) => commitOf(item) !== cut);
  return kept.length > 0 ? kept : page;
}

/** Sizes and counts in the CLI's output: decimal sizes (1 KB = 1,000 bytes) from the one implementation the client and the portal use too. */
export { formatBytes } from '../../client/format.ts';

/**
 * `1 file`, `2 files`, `1200 files`. Unlike the portal's, no thousands separator: scripts
 * read these lines (`replayed 1200 events`).
 */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** An ISO time to the minute, in UTC (`2026-01-31T09:05Z`): short, sortable, unambiguous. */
export function formatMinute(iso: string | undefined): string {
  if (!iso) return '';
  const t = new Date(iso);
  return Number.isNaN(t.getTime()) ? iso : `${t.toISOString().slice(0, 16)}Z`;
}

/**
 * Rows of cells as aligned columns (two spaces apart; the last column is not padded). A
 * cell's control characters become spaces: key names come from API callers and must
 * not move the cursor or break the table.
 */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const clean = (cell: string) => cell.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ');
  const all = [header, ...rows].map((r) => r.map(clean));
  const widths = header.map((_, i) => Math.max(...all.map((r) => [...(r[i] ?? '')].length)));
  return all
    .map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell + ' '.repeat(widths[i]! - [...cell].length))).join('  ').trimEnd())
    .join('\n');
}

/** Formatting for sizes, dates and grants shown in the portal. */
import type { Grant } from './types.ts';

/**
 * Sizes in decimal units, labelled as such (1 KB = 1,000 bytes), the project's one
 * convention: the CLI, the portal and the logs all say the same number for the same file.
 */
export function formatBytes(n: number | undefined): string {
  if (n === undefined) return '';
  if (n < 1000) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n / 1000;
  let i = 0;
  while (v >= 999.5 && i < units.length - 1) {
    v /= 1000;
    i++;
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[i]}`;
}

const pad = (n: number): string => String(n).padStart(2, '0');

/** `YYYY-MM-DD HH:MM[:SS]` in the viewer's time zone: compact and unambiguous. */
export function formatTime(iso: string | undefined, opts: { seconds?: boolean } = {}): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const base = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
  return opts.seconds ? `${base}:${pad(d.getSeconds())}` : base;
}

/** The full path of a site: group labels then slug. */
export function sitePath(site: { group: string; slug: string }): string {
  return site.group ? `${site.group}/${site.slug}` : site.slug;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en')} ${n === 1 ? one : many}`;
}

/** A grant in words, as the keys and connections views show it: "publish, patch on group docs". */
export function describeGrant(g: Grant): string {
  const where = g.kind === 'site' ? `site ${g.target}` : g.target === '' ? 'all sites' : `group ${g.target}`;
  return `${g.permissions.join(', ')} on ${where}`;
}

/** Formatting for sizes, dates and grants shown in the portal. */
import type { Grant } from './types.ts';

import { formatBytes as decimalBytes } from '../../client/format.ts';

/**
 * Sizes in decimal units, labelled as such (1 KB = 1,000 bytes), the project's one
 * convention: the same function as the CLI's, so both say the same number for the same file.
 */
export function formatBytes(n: number | undefined): string {
  return n === undefined ? '' : decimalBytes(n);
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

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * "just now", "5 minutes ago", "yesterday", "in 3 days": how long ago (or until) a moment
 * is, for lists read at a glance. Past a month the date itself says more, so it is shown
 * (`2026-01-31`); the exact time is always in the element's tooltip (see `when`).
 */
export function formatRelative(iso: string | undefined, now = Date.now()): string {
  if (!iso) return '';
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  const diff = t - now;
  const abs = Math.abs(diff);
  const ago = (n: number, unit: string) => (diff < 0 ? `${plural(n, unit)} ago` : `in ${plural(n, unit)}`);
  if (abs < 45_000) return diff < 0 ? 'just now' : 'in a moment';
  if (abs < HOUR) return ago(Math.max(1, Math.round(abs / MINUTE)), 'minute');
  if (abs < DAY) return ago(Math.round(abs / HOUR), 'hour');
  const days = calendarDays(t, now);
  if (days === -1) return 'yesterday';
  if (days === 1) return 'tomorrow';
  if (Math.abs(days) <= 30) return ago(Math.abs(days), 'day');
  return formatTime(iso).slice(0, 10);
}

/** Calendar days from `now` to `t` in the viewer's time zone (-1 = yesterday), not 24-hour periods. */
function calendarDays(t: number, now: number): number {
  const midnight = (x: number) => {
    const d = new Date(x);
    return Date.UTC(d.getFullYear(), d.getMonth(), d.getDate());
  };
  return Math.round((midnight(t) - midnight(now)) / DAY);
}

/** A size change with its sign: "+48 KB", "−1.2 MB" (a real minus), "±0 B". */
export function formatSignedBytes(n: number): string {
  if (n === 0) return '±0 B';
  return `${n > 0 ? '+' : '−'}${formatBytes(Math.abs(n))}`;
}

/** The viewer's local calendar day of a moment, `YYYY-MM-DD`: the key of the History's day groups. */
export function localDay(iso: string): string {
  return formatTime(iso).slice(0, 10);
}

/** A day heading: "Today", "Yesterday", else "Monday 17 November 2026". */
export function dayHeading(day: string, now = Date.now()): string {
  const [y, m, d] = day.split('-').map(Number);
  const date = new Date(y, m - 1, d);
  if (Number.isNaN(date.getTime())) return day;
  const days = calendarDays(date.getTime(), now);
  if (days === 0) return 'Today';
  if (days === -1) return 'Yesterday';
  return date.toLocaleDateString('en-GB', { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' }).replace(',', '');
}

/** One or two letters for a site without a picture: "Docs Guide" → "DG", "blog" → "B". */
export function initials(title: string): string {
  const words = title.trim().split(/[\s._/-]+/).filter((w) => /[\p{L}\p{N}]/u.test(w));
  const letters = words.slice(0, 2).map((w) => [...w.replace(/^[^\p{L}\p{N}]+/u, '')][0] ?? '');
  return letters.join('').toUpperCase() || '?';
}

/** A share as a whole percentage, never rounding a real saving to 0% or a partial one to 100%. */
export function formatPercent(part: number, whole: number): string {
  if (whole <= 0) return '0%';
  const p = (part / whole) * 100;
  const r = p > 0 && p < 1 ? 1 : p < 100 && p > 99 ? 99 : Math.round(p);
  return `${r}%`;
}

/**
 * Who did something, as events (and `updated_by`, `revoked_by`) name them, `{kind, name, id?}`:
 * "admin", "key “ci” (#3)". `short` leaves out the key's id and who approved an MCP client
 * (a card has room for a name only). Older or other shapes are shown as given.
 */
export function describeActor(actor: unknown, opts: { short?: boolean } = {}): string {
  if (typeof actor === 'string') return actor;
  if (actor && typeof actor === 'object') {
    const a = actor as { kind?: string; name?: string; id?: unknown; user?: string };
    switch (a.kind) {
      case 'user':
        return `${a.name}`;
      case 'key':
        return opts.short ? `key “${a.name}”` : `key “${a.name}” (#${a.id})`;
      case 'connection':
        return `MCP client ${a.name}${a.user && !opts.short ? `, approved by ${a.user}` : ''}`;
      case 'system':
        return `the service (${a.name})`;
    }
    return JSON.stringify(actor);
  }
  return 'unknown';
}

/**
 * Durations: canonical whole seconds against upstream's encodings (HH:MM:SS on
 * targets, ISO 8601 in analyses, milliseconds in history and progress).
 */

import { num } from './json.ts';

const pad2 = (n: number): string => String(n).padStart(2, '0');

/** Seconds → `HH:MM:SS`, zero padded, hours allowed past 23 (90000 → `25:00:00`). */
export function secondsToHms(total: number): string {
  const s = Math.max(0, Math.trunc(total));
  return `${pad2(Math.floor(s / 3600))}:${pad2(Math.floor((s % 3600) / 60))}:${pad2(s % 60)}`;
}

/** Strict `HH:MM:SS` (two-digit minute/second fields, hours ≥ 2 digits) → seconds. */
export function hmsToSeconds(v: unknown): number | undefined {
  if (typeof v !== 'string') return undefined;
  const m = /^(\d{2,}):([0-5]\d):([0-5]\d)$/.exec(v);
  if (!m) return undefined;
  return Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]);
}

/** ISO-8601 duration (`PT52M40.5S`, `PT16H`, `P1DT2H`, `PT300S`) → whole seconds, truncated. */
export function isoDurationToSeconds(v: unknown): number | undefined {
  if (typeof v !== 'string') return undefined;
  const m = /^(-)?P(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/.exec(v);
  if (!m || v === 'P' || v.endsWith('T')) return undefined;
  const [, neg, d, h, mi, s] = m;
  const total = Number(d ?? 0) * 86400 + Number(h ?? 0) * 3600 + Number(mi ?? 0) * 60 + Number(s ?? 0);
  return Math.trunc(neg ? -total : total);
}

/** Milliseconds → whole seconds, truncated; null/missing stays absent. */
export function msToSeconds(v: unknown): number | undefined {
  const n = num(v);
  return n === undefined ? undefined : Math.trunc(n / 1000);
}

/** Prompt wording: `1 h 5 min`, `2 h`, `45 min`, `30 s` (seconds dropped past a minute). */
export function humanDuration(totalSeconds: number): string {
  const s = Math.trunc(totalSeconds);
  if (s < 60) return `${s} s`;
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (h === 0) return `${m} min`;
  return m === 0 ? `${h} h` : `${h} h ${m} min`;
}

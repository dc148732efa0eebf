/**
 * Dates and datetimes: canonical `YYYY-MM-DD` and ISO 8601 against the
 * upstream's day-month forms, local wall clocks and numeric offsets. The only
 * ambient input is the process time zone used by {@link localOffsetMinutes}.
 */

const pad2 = (n: number): string => String(n).padStart(2, '0');

/** `YYYY-MM-DD` of a Date in UTC: the contract computes "today" in UTC. */
export function utcDate(d: Date): string {
  return d.toISOString().slice(0, 10);
}

/** Adds whole days to a `YYYY-MM-DD` calendar date (negative to go back). */
export function addDays(ymd: string, days: number): string {
  const [y, m, d] = ymd.split('-').map(Number);
  return utcDate(new Date(Date.UTC(y, m - 1, d + days)));
}

/** True for a real calendar day in `YYYY-MM-DD` form (`2026-02-30` is not). */
export function isRealDate(v: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(v)) return false;
  const [y, m, d] = v.split('-').map(Number);
  const t = new Date(Date.UTC(y, m - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === m - 1 && t.getUTCDate() === d;
}

/** `2026-02-03` → `3.2.2026`: calendar events and week summary (unpadded, dots). */
export function toDottedDate(ymd: string): string {
  const [y, m, d] = ymd.split('-').map(Number);
  return `${d}.${m}.${y}`;
}

/** `2026-02-03` → `03-02-2026`: progress summary (padded, dashes). */
export function toDashedDate(ymd: string): string {
  const [y, m, d] = ymd.split('-');
  return `${d}-${m}-${y}`;
}

/**
 * Upstream local datetimes (`2026-02-03 18:00:00.000`, `2026-02-03T18:00:00.708`,
 * `2026-02-03T18:00`) → `YYYY-MM-DDTHH:MM:SS`; a value carrying a zone keeps it
 * (RFC 3339). Unparseable input gives undefined so callers can decide.
 */
export function toIsoDateTime(v: unknown): string | undefined {
  if (typeof v !== 'string') return undefined;
  const m = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?(?:\.\d+)?(Z|[+-]\d{2}:?\d{2})?$/.exec(v.trim());
  if (!m) return undefined;
  const [, day, hh, mm, ss, zone] = m;
  const base = `${day}T${hh}:${mm}:${ss ?? '00'}`;
  if (!zone) return base;
  if (zone === 'Z') return `${base}Z`;
  return `${base}${zone.slice(0, 3)}:${zone.slice(-2)}`;
}

/** Minutes east of UTC of the process time zone at a local wall-clock instant. */
export function localOffsetMinutes(date: string, time: string): number {
  const [y, mo, d] = date.split('-').map(Number);
  const [h, mi] = time.split(':').map(Number);
  return -new Date(y, mo - 1, d, h, mi).getTimezoneOffset();
}

/** Offset minutes → `+0100` / `-0530` (no colon, as the create-training body wants). */
export function formatOffset(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const a = Math.abs(minutes);
  return `${sign}${pad2(Math.floor(a / 60))}${pad2(a % 60)}`;
}

/** The create-training `date`: local wall clock with numeric offset, `2026-03-08T07:15+0100`. */
export function trainingWireDate(date: string, time: string, offsetMinutes: number): string {
  return `${date}T${time}${formatOffset(offsetMinutes)}`;
}

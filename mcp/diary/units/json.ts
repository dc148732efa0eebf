/**
 * Reading upstream JSON, whose shapes are not trusted, and the contract's
 * omission rule: an absent value is left out, never sent as null, -1 or "".
 */

/** A JSON object as received from upstream; shapes are not trusted. */
export type Json = Record<string, unknown>;

/** A plain object (not null, not an array). */
export function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A finite number, else undefined. */
export function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** A string that is non-empty after trimming, else undefined (the contract's omission rule). */
export function presentText(v: unknown): string | undefined {
  if (typeof v !== 'string') return undefined;
  return v.trim() === '' ? undefined : v;
}

/** Drops keys whose value is undefined so that absent values never reach JSON as null. */
export function compact<T extends Json>(obj: T): T {
  const out: Json = {};
  for (const [k, v] of Object.entries(obj)) if (v !== undefined) out[k] = v;
  return out as T;
}

/** The `-1` id sentinel and null both mean "no value". */
export function presentId(v: unknown): number | undefined {
  const n = num(v);
  return n === undefined || n === -1 ? undefined : n;
}

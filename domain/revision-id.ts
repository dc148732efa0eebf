import { ValidationError } from './errors.ts';

/**
 * Revision ids are the UTC instant of the publish with nanoseconds,
 * `YYYYMMDDTHHMMSS.nnnnnnnnnZ`. They sort as strings in time order, so
 * "strictly increasing per site" is a string comparison.
 */
const FORMAT = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})\.(\d{9})Z$/;

export function isRevisionId(value: string): boolean {
  return FORMAT.test(value);
}

/** Formats nanoseconds since the epoch. */
export function formatRevisionId(epochNanos: bigint): string {
  const millis = Number(epochNanos / 1_000_000n);
  const iso = new Date(millis).toISOString(); // 2026-11-21T10:15:00.123Z
  const nanos = (epochNanos % 1_000_000_000n).toString().padStart(9, '0');
  return `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}T${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}.${nanos}Z`;
}

export function parseRevisionId(id: string): bigint {
  const m = FORMAT.exec(id);
  if (!m) throw new ValidationError(`revision ${JSON.stringify(id)} is not a revision id`);
  const [, y, mo, d, h, mi, s, ns] = m;
  const millis = Date.UTC(+y!, +mo! - 1, +d!, +h!, +mi!, +s!);
  return BigInt(millis) * 1_000_000n + BigInt(ns!);
}

/** RFC 3339 time of a revision id (millisecond precision). */
export function revisionTime(id: string): string {
  return new Date(Number(parseRevisionId(id) / 1_000_000n)).toISOString();
}

/**
 * The id for a publish at `nowNanos`, bumped past `latest` so two publishes in
 * the same nanosecond (or a clock step backwards) still get increasing ids.
 */
export function nextRevisionId(nowNanos: bigint, latest: string | undefined): string {
  if (latest === undefined) return formatRevisionId(nowNanos);
  const floor = parseRevisionId(latest) + 1n;
  return formatRevisionId(nowNanos > floor ? nowNanos : floor);
}

/** Nanoseconds since the epoch from the wall clock (process.hrtime adds sub-ms digits). */
export function nowNanos(): bigint {
  const ms = BigInt(Date.now());
  const sub = process.hrtime.bigint() % 1_000_000n;
  return ms * 1_000_000n + sub;
}

/** Rounding of measured values in canonical units: metres, km/h and pace. */
import { num } from './json.ts';

const round = (v: number, digits: number): number => {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
};

/** Metres (distance, ascent, descent) to 0.1 m; absent stays absent. */
export function metresToTenth(v: unknown): number | undefined {
  const n = num(v);
  return n === undefined ? undefined : round(n, 1);
}

/** A speed in km/h to two decimals; absent stays absent. */
export function kmh(v: unknown): number | undefined {
  const n = num(v);
  return n === undefined ? undefined : round(n, 2);
}

/** Pace in whole seconds per km from an (unrounded) average speed in km/h; none when not moving. */
export function paceSecondsPerKm(speedKmh: number | undefined): number | undefined {
  return speedKmh !== undefined && speedKmh > 0 ? Math.round(3600 / speedKmh) : undefined;
}

/**
 * The analysis details as the compact canonical view of
 * `get_training_session_details`: statistics, zone times, laps, target reps and
 * the names of the recorded sample metrics (never their values).
 */
import { toIsoDateTime } from './date.ts';
import { isoDurationToSeconds } from './duration.ts';
import { byStart, exerciseList } from './exercises.ts';
import { compact, isObject, num, presentId, type Json } from './json.ts';
import { kmh, metresToTenth } from './measure.ts';
import { targetResult } from './training-reps.ts';

const STAT_KEYS = { HEART_RATE: 'hr_bpm', SPEED: 'speed_kmh', POWER: 'power_w', CADENCE: 'cadence' } as const;
const SAMPLE_ORDER = ['HEART_RATE', 'SPEED', 'DISTANCE', 'CADENCE', 'ALTITUDE', 'POWER'];
const ZONE_KEYS = { HEART_RATE: 'hr', SPEED: 'speed', POWER: 'power' } as const;
// Upstream's "no ceiling" sentinels of the top speed and power zones.
const ZONE_CEILING: Record<string, number> = { SPEED: 399, POWER: 2000 };

function stat(s: unknown, key: keyof typeof STAT_KEYS): Json | undefined {
  if (!isObject(s)) return undefined;
  const conv = (v: unknown): number | undefined => {
    const n = num(v);
    if (n === undefined) return undefined;
    return key === 'SPEED' ? kmh(n) : Math.round(n);
  };
  const out = compact({ avg: conv(s.avg), max: conv(s.max), min: conv(s.min) });
  // Manually logged trainings report HR as 0: an all-zero block carries no information.
  return Object.values(out).some((v) => v !== 0) ? out : undefined;
}

function zonesFor(z: unknown): Json | undefined {
  if (!isObject(z)) return undefined;
  const out: Json = {};
  for (const [up, key] of Object.entries(ZONE_KEYS)) {
    const list = z[up];
    if (!Array.isArray(list) || list.length === 0) continue;
    out[key] = list.filter(isObject).map((item, i) => {
      const max = num(item.higherLimit);
      const ceiling = ZONE_CEILING[up];
      return compact({
        zone: num(item.zoneIndex) ?? i + 1,
        min: num(item.lowerLimit),
        max: max !== undefined && ceiling !== undefined && max >= ceiling ? undefined : max,
        time_s: isoDurationToSeconds(item.inZone),
        distance_m: num(item.distance),
      });
    });
  }
  return Object.keys(out).length ? out : undefined;
}

function sampleNames(samples: unknown): string[] {
  if (!isObject(samples)) return [];
  const present = Object.keys(samples).filter((k) => samples[k] !== null && samples[k] !== undefined);
  const known = SAMPLE_ORDER.filter((k) => present.includes(k));
  const others = present.filter((k) => !SAMPLE_ORDER.includes(k)).sort();
  return [...known, ...others];
}

/** Analysis details → the compact canonical view (samples reduced to their metric names). */
export function toTrainingDetails(body: unknown): Json {
  const b = isObject(body) ? body : {};
  const pick = (block: unknown, key: string): unknown => (isObject(block) ? block[key] : undefined);
  const exercises = exerciseList(b.exercises)
    .sort(byStart)
    .map((ex) => {
      const key = String(ex.__key);
      const stats = isObject(ex.trainingStatistic) ? ex.trainingStatistic : {};
      const laps = pick(b.laps, key);
      const auto = isObject(laps) && Array.isArray(laps.automaticLaps) ? laps.automaticLaps : [];
      const manual = isObject(laps) && Array.isArray(laps.manualLaps) ? laps.manualLaps : [];
      return compact({
        exercise_id: num(ex.id) ?? (/^\d+$/.test(key) ? Number(key) : undefined),
        sport_id: isObject(ex.sport) ? num(ex.sport.id) : undefined,
        start_time: toIsoDateTime(ex.startTime),
        stop_time: toIsoDateTime(ex.stopTime),
        duration_s: isoDurationToSeconds(ex.duration),
        distance_m: metresToTenth(ex.distance),
        calories: num(ex.calories),
        ascent_m: metresToTenth(ex.ascent),
        descent_m: metresToTenth(ex.descent),
        running_index: num(ex.runningIndex),
        recovery_time_s: isoDurationToSeconds(ex.recoveryTime),
        hr_bpm: stat(stats.HEART_RATE, 'HEART_RATE'),
        speed_kmh: stat(stats.SPEED, 'SPEED'),
        power_w: stat(stats.POWER, 'POWER'),
        cadence: stat(stats.CADENCE, 'CADENCE'),
        zones: zonesFor(pick(b.zones, key)),
        laps: auto.length || manual.length ? { automatic: auto, manual } : undefined,
        target: targetResult(pick(b.exerciseResultTargetData, key)),
        samples: sampleNames(pick(b.samples, key)),
      });
    });
  return compact({ id: presentId(b.id), exercises });
}

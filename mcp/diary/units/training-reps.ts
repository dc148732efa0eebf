/** The training-target part of training details: one canonical rep per upstream repetition model. */
import { isoDurationToSeconds } from './duration.ts';
import { compact, isObject, num, presentText, type Json } from './json.ts';
import { kmh, paceSecondsPerKm } from './measure.ts';

const TARGET_ZONE_TYPES: Record<string, string> = {
  HEART_RATE_ZONES: 'hr',
  HEART_RATE: 'hr',
  SPEED_ZONES: 'speed',
  SPEED: 'speed',
  POWER_ZONES: 'power',
  POWER: 'power',
};

const statOf = (v: unknown): Json => (isObject(v) ? v : {});

function rep(r: Json, i: number, models: Json[]): Json {
  const model = models.find((m) => m.phaseIndex === r.phaseIndex);
  const duration = isoDurationToSeconds(r.duration);
  const end = isoDurationToSeconds(r.splitTime) ?? duration;
  const speed = statOf(r.speedStatistic);
  const hr = statOf(r.heartRateStatistic);
  const power = statOf(r.powerStatistic);
  const cadence = statOf(r.cadenceStatistic);
  const zoneType = model ? TARGET_ZONE_TYPES[String(model.zoneType)] : undefined;
  return compact({
    index: i + 1,
    phase: model ? presentText(model.name) : undefined,
    phase_index: num(r.phaseIndex),
    repetition: num(r.phaseRepetitionIndex),
    start_s: end !== undefined && duration !== undefined ? Math.max(0, end - duration) : undefined,
    end_s: end,
    duration_s: duration,
    distance_m: num(r.distance),
    hr_avg: num(hr.avg),
    hr_max: num(hr.max),
    avg_speed_kmh: kmh(speed.avg),
    max_speed_kmh: kmh(speed.max),
    pace_s_per_km: paceSecondsPerKm(num(speed.avg)),
    power_avg_w: num(power.avg),
    power_max_w: num(power.max),
    cadence_avg: num(cadence.avg),
    in_zone_s: isoDurationToSeconds(r.inZone),
    target_zone: model && zoneType ? { type: zoneType, lower: num(model.lowerZone), upper: num(model.upperZone) } : undefined,
    finished: r.finished === true,
  });
}

/** `exerciseResultTargetData[<exerciseId>]` → `{name, type, reached, reps}`; undefined when there is none. */
export function targetResult(t: unknown): Json | undefined {
  if (!isObject(t)) return undefined;
  const models = Array.isArray(t.exercisePhaseModels) ? t.exercisePhaseModels.filter(isObject) : [];
  const reps = (Array.isArray(t.exercisePhaseRepetitionModels) ? t.exercisePhaseRepetitionModels : [])
    .filter(isObject)
    .map((r, i) => rep(r, i, models));
  return compact({
    name: presentText(t.name),
    type: presentText(t.type),
    reached: typeof t.targetReached === 'boolean' ? t.targetReached : undefined,
    reps,
  });
}

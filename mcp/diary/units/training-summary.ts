/** The analysis summary as the canonical training of `get_training_session_summary`. */
import { toIsoDateTime } from './date.ts';
import { isoDurationToSeconds } from './duration.ts';
import { byStart, exerciseList } from './exercises.ts';
import { compact, isObject, num, presentId, presentText, type Json } from './json.ts';

/** Analysis summary → canonical training; top-level nulls fall back to exercise values. */
export function toTrainingSummary(body: unknown): Json {
  const b = isObject(body) ? body : {};
  const exercises = exerciseList(b.exercises).sort(byStart);
  const firstSport = exercises.map((e) => (isObject(e.sport) ? num(e.sport.id) : undefined)).find((v) => v !== undefined);
  const exDistances = exercises.map((e) => num(e.distance)).filter((v): v is number => v !== undefined);
  return compact({
    id: presentId(b.id),
    name: presentText(b.trainingSessionName),
    sport_id: num(b.sportId) ?? firstSport,
    start_time: toIsoDateTime(b.startDate),
    stop_time: toIsoDateTime(b.stopTime),
    session_duration_s: isoDurationToSeconds(b.duration),
    distance_m: num(b.distance) ?? (exDistances.length ? exDistances.reduce((x, y) => x + y, 0) : undefined),
    hr_avg: num(b.hrAverage),
    hr_max: num(b.hrMax),
    calories: num(b.kiloCalories),
    training_load: num(b.trainingLoad),
    note: presentText(b.note)?.trim(),
  });
}

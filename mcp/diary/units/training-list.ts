/** Session history rows as the canonical items of `list_training_sessions`. */
import { toIsoDateTime } from './date.ts';
import { msToSeconds } from './duration.ts';
import { compact, isObject, num, presentText, type Json } from './json.ts';

/** History row → canonical list item (ms → s, `" "` note → omitted, space-separated start → ISO). */
export function toTrainingListItem(row: unknown): Json {
  const r = isObject(row) ? row : {};
  const start = presentText(r.startDate);
  return compact({
    id: r.id,
    sport_id: r.sportId,
    sport_name: presentText(r.sportName),
    start_time: start === undefined ? undefined : (toIsoDateTime(start) ?? start),
    session_duration_s: msToSeconds(r.duration) ?? 0,
    distance_m: num(r.distance),
    hr_avg: num(r.hrAvg),
    calories: num(r.calories),
    recovery_time_s: msToSeconds(r.recoveryTime),
    note: presentText(r.note)?.trim(),
    has_training_target: r.hasTrainingTarget === true,
    is_test: r.isTest === true,
  });
}

/** The progress body as the canonical summary of `get_progress_summary`. */
import { msToSeconds } from './duration.ts';
import { compact, isObject, num, type Json } from './json.ts';

/** Progress body → canonical summary; a missing body (upstream 404) reads as all zeros. */
export function toProgressSummary(body: unknown, from: string, to: string): Json {
  const b = isObject(body) ? body : {};
  const nonEmpty = (v: unknown): unknown => (Array.isArray(v) && v.length > 0 ? v : undefined);
  const ascent = num(b.totalAscent);
  const descent = num(b.totalDescent);
  return compact({
    from_date: from,
    to_date: to,
    number_of_sessions: num(b.totalTrainingSessionCount) ?? 0,
    // The broken-down parts repeat the same value; only millis is the total.
    total_duration_s: (isObject(b.totalDuration) ? msToSeconds(b.totalDuration.millis) : undefined) ?? 0,
    total_distance_m: num(b.totalDistance) ?? 0,
    total_kcal: num(b.totalCalories) ?? 0,
    total_ascent_m: ascent ? ascent : undefined,
    total_descent_m: descent ? descent : undefined,
    sport_breakdown: isObject(b.sportDistributions) ? b.sportDistributions : undefined,
    heart_rate_zones: nonEmpty(b.totalHeartRateZoneList),
    training_benefit_breakdown: nonEmpty(b.trainingBenefitDistributionList),
  });
}

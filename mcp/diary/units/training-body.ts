/** The create-training body of a manually logged training. */
import { trainingWireDate } from './date.ts';
import type { Json } from './json.ts';

/** Validated create-training arguments. */
export type TrainingInput = {
  name: string;
  date: string;
  time: string;
  duration_s: number;
  distance_m: number;
  kcal: number;
  hr_avg?: number;
  hr_max?: number;
  speed_kmh?: number;
  sport_id: number;
  note: string;
};

/** Canonical training → the create-training body (every key present; HR as decimal strings or ""). */
export function trainingToWire(s: TrainingInput, offsetMinutes: number): Json {
  const hr = (v: number | undefined): string => (v ? String(v) : '');
  return {
    date: trainingWireDate(s.date, s.time, offsetMinutes),
    sport: s.sport_id,
    duration: s.duration_s,
    distance: s.distance_m,
    hrAverage: hr(s.hr_avg),
    hrMax: hr(s.hr_max),
    kiloCalories: s.kcal,
    speedAverage: s.speed_kmh ? s.speed_kmh : null,
    note: s.note,
    trainingSessionName: s.name,
    feeling: null,
    interpolatedHeartRateSamples: [],
    saveHeartRateSamples: false,
  };
}

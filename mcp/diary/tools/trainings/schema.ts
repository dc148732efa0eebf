/** The arguments of create_training_session (spec §5.11): the canonical {@link TrainingInput}, defaults applied. */
import * as z from 'zod';
import type { TrainingInput } from '../../units/training-body.ts';
import { countInt, date, nonNegativeNumber, positiveInt, text, time } from '../args/fields.ts';
import { parseArgs } from '../args/parse.ts';

export const trainingInput = z
  .object({
    name: text('Display name', { nonBlank: true }),
    date: date('Day of the session, YYYY-MM-DD'),
    time: time('Local start time HH:MM; default 18:00').nullish(),
    duration_s: positiveInt('Duration in seconds, at least 1'),
    distance_m: countInt('Distance in metres; default 0').nullish(),
    kcal: countInt('Kilocalories; default 0').nullish(),
    hr_avg: countInt('Average heart rate in bpm; omit or 0 for unset').nullish(),
    hr_max: countInt('Maximum heart rate in bpm; omit or 0 for unset').nullish(),
    speed_kmh: nonNegativeNumber('Average speed in km/h; omit or 0 for unset').nullish(),
    sport_id: positiveInt('Sport id from list_sports; default 1 (running)').nullish(),
    note: text('Free text').nullish(),
  })
  .transform(
    (a): TrainingInput => ({
      name: a.name,
      date: a.date,
      time: a.time ?? '18:00',
      duration_s: a.duration_s,
      distance_m: a.distance_m ?? 0,
      kcal: a.kcal ?? 0,
      hr_avg: a.hr_avg ?? undefined,
      hr_max: a.hr_max ?? undefined,
      speed_kmh: a.speed_kmh ?? undefined,
      sport_id: a.sport_id ?? 1,
      note: a.note ?? '',
    }),
  );

/** Validates raw `create_training_session` arguments and applies its defaults. */
export const trainingArgs = (args: unknown): TrainingInput => parseArgs(trainingInput, args);

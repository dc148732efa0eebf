/**
 * Input-schema building blocks. Schemas declare types, required lists and enums
 * only; every optional field also accepts null (the contract treats null as
 * absent). Ranges and formats are checked in validate.ts so the messages follow
 * the contract.
 */
import * as z from 'zod';

/** An integer in the advertised schema; fractions still reach the handler, which words the error. */
export const int = (description: string) => z.number().meta({ type: 'integer' }).describe(description);

/** Optional (nullable) variants. */
export const optInt = (description: string) => int(description).nullish();
export const optNum = (description: string) => z.number().describe(description).nullish();
export const optStr = (description: string) => z.string().describe(description).nullish();
export const str = (description: string) => z.string().describe(description);

const zone = (what: string) => optInt(`${what} zone index 1-5 (not raw units)`);

const intensity = z
  .looseObject({
    hr_zone: zone('Heart-rate'),
    power_zone: zone('Power (needs a power-capable sport such as cycling, sport_id 2)'),
    speed_zone: zone('Speed'),
    label: z
      .enum(['easy', 'aerobic', 'tempo', 'threshold', 'vo2max'])
      .describe('easy = HR zones 1-2, aerobic = 2, tempo = 3, threshold = 4, vo2max = 5')
      .nullish(),
  })
  .describe('At most one of hr_zone, power_zone, speed_zone, label (precedence in that order); omit for open intensity')
  .nullish();

/** One canonical phase (warmup, repeat or cooldown). */
export const phase = z.looseObject({
  type: z.enum(['warmup', 'repeat', 'cooldown']).describe('warmup/cooldown: one duration-goaled block; repeat: an interval set'),
  name: optStr('Optional label, at most 45 characters; defaults to Warm-up, Work (repeat) or Cool-down'),
  duration_s: optInt('warmup/cooldown only: duration in seconds, at least 1'),
  reps: optInt('repeat only: number of repetitions, at least 2'),
  goal: z
    .looseObject({ distance_m: optInt('Work distance in metres'), duration_s: optInt('Work duration in seconds') })
    .describe('repeat only: exactly one of distance_m or duration_s')
    .nullish(),
  intensity,
  recovery: z
    .looseObject({ duration_s: optInt('Recovery duration in seconds'), name: optStr('Optional label (default Recovery)') })
    .describe('repeat only: recovery inserted between reps')
    .nullish(),
});

/** Date arguments. */
export const optDate = (description: string) => optStr(`${description} (YYYY-MM-DD)`);

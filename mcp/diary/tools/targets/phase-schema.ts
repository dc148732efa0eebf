/**
 * The phase argument (spec §5.15). Name and intensity are taken by every phase
 * and carry their own rules; which other members a phase needs or refuses
 * depends on its type, so those rules sit on the phase object, checked in the
 * order the contract words them. The result is a typed canonical {@link Phase}.
 */
import * as z from 'zod';
import { LABEL_ZONES, type Intensity, type IntensityLabel } from '../../units/intensity.ts';
import type { Phase } from '../../units/phases.ts';
import { isAbsent, looseObject, oneOf, POSITIVE, REQUIRED, text, tooLong, wholeNumber, zone } from '../args/fields.ts';
import { parseArgs, reject } from '../args/parse.ts';

const LABELS = Object.keys(LABEL_ZONES) as [IntensityLabel, ...IntensityLabel[]];
const REPS = 'must be a whole number of at least 2';
const NAME_MAX = 45;

const zoneOf = (what: string) => zone(`${what} zone index 1-5 (not raw units)`).nullish();

// Every supplied member is validated even though only one wins (precedence in units/intensity.ts).
const intensity = looseObject({
  hr_zone: zoneOf('Heart-rate'),
  power_zone: zoneOf('Power (needs a power-capable sport such as cycling, sport_id 2)'),
  speed_zone: zoneOf('Speed'),
  label: oneOf(LABELS, 'easy = HR zones 1-2, aerobic = 2, tempo = 3, threshold = 4, vo2max = 5').nullish(),
})
  .describe('At most one of hr_zone, power_zone, speed_zone, label (precedence in that order); omit for open intensity')
  .transform((i): Intensity | undefined => {
    const out: Intensity = {};
    if (!isAbsent(i.hr_zone)) out.hr_zone = i.hr_zone;
    if (!isAbsent(i.power_zone)) out.power_zone = i.power_zone;
    if (!isAbsent(i.speed_zone)) out.speed_zone = i.speed_zone;
    if (!isAbsent(i.label)) out.label = i.label;
    // An empty object means open intensity, like an absent one.
    return Object.keys(out).length ? out : undefined;
  })
  .nullish();

const phaseFields = looseObject({
  type: oneOf(['warmup', 'repeat', 'cooldown'], 'warmup/cooldown: one duration-goaled block; repeat: an interval set'),
  name: text('Optional label, at most 45 characters; defaults to Warm-up, Work (repeat) or Cool-down', { max: NAME_MAX }).nullish(),
  duration_s: wholeNumber('warmup/cooldown only: duration in seconds, at least 1').nullish(),
  reps: wholeNumber('repeat only: number of repetitions, at least 2', REPS).nullish(),
  goal: looseObject({
    distance_m: wholeNumber('Work distance in metres').nullish(),
    duration_s: wholeNumber('Work duration in seconds').nullish(),
  })
    .describe('repeat only: exactly one of distance_m or duration_s')
    .nullish(),
  intensity,
  recovery: looseObject({
    duration_s: wholeNumber('Recovery duration in seconds').nullish(),
    name: text('Optional label (default Recovery)').nullish(),
  })
    .describe('repeat only: recovery inserted between reps')
    .nullish(),
});

type PhaseFields = z.output<typeof phaseFields>;

/** The members a phase type needs or refuses, and the rules of the repeat-only members. */
function phaseRules(ctx: z.core.ParsePayload<PhaseFields>): void {
  const p = ctx.value;
  const fail = (path: PropertyKey[], advice: string): void => reject(ctx, path, advice);
  if (p.type !== 'repeat') {
    if (!isAbsent(p.reps)) return fail(['reps'], 'not accepted on warmup/cooldown');
    if (!isAbsent(p.recovery)) return fail(['recovery'], 'not accepted on warmup/cooldown');
    if (!isAbsent(p.goal)) return fail(['goal'], 'not accepted on warmup/cooldown; use duration_s');
    if (isAbsent(p.duration_s)) return fail(['duration_s'], REQUIRED);
    if (p.duration_s < 1) return fail(['duration_s'], POSITIVE);
    return;
  }
  if (!isAbsent(p.duration_s)) return fail(['duration_s'], 'not accepted on repeat; put it in goal or recovery');
  if (isAbsent(p.reps)) return fail(['reps'], REQUIRED);
  if (p.reps < 2) return fail(['reps'], REPS);
  if (isAbsent(p.goal)) return fail(['goal'], REQUIRED);
  const { distance_m, duration_s } = p.goal;
  if (!isAbsent(distance_m) && distance_m < 1) return fail(['goal', 'distance_m'], POSITIVE);
  if (!isAbsent(duration_s) && duration_s < 1) return fail(['goal', 'duration_s'], POSITIVE);
  if (isAbsent(distance_m) === isAbsent(duration_s)) return fail(['goal'], 'give exactly one of distance_m or duration_s');
  const r = p.recovery;
  if (isAbsent(r)) return;
  if (isAbsent(r.duration_s)) return fail(['recovery', 'duration_s'], REQUIRED);
  if (r.duration_s < 1) return fail(['recovery', 'duration_s'], POSITIVE);
  if (!isAbsent(r.name) && r.name.length > NAME_MAX) return fail(['recovery', 'name'], tooLong(r.name, NAME_MAX));
}

/** Builds the canonical phase; phaseRules has already made sure the members its type needs are there. */
function toPhase(p: PhaseFields): Phase {
  const name = p.name ?? undefined;
  const intensity = p.intensity ?? undefined;
  if (p.type !== 'repeat') return { type: p.type, name, duration_s: p.duration_s!, intensity };
  const goal = p.goal!;
  const r = p.recovery;
  return {
    type: 'repeat',
    name,
    reps: p.reps!,
    goal: isAbsent(goal.distance_m) ? { duration_s: goal.duration_s! } : { distance_m: goal.distance_m },
    intensity,
    recovery: isAbsent(r) ? undefined : { duration_s: r.duration_s!, name: r.name ?? undefined },
  };
}

/** One canonical phase (warmup, repeat or cooldown). */
export const phase = phaseFields.check(phaseRules).transform(toPhase);

/** The `phases` argument; `[]` stays `[]` (a VOLUME target), absent stays undefined. */
export const phasesArg = z
  .array(phase, { error: 'must be an array' })
  .describe('Ordered phases of a PHASED target; omit or [] for a VOLUME target')
  .nullish();

/** Validates a raw `phases` value on its own, with the `phases` path prefix of the messages. */
export function phases(v: unknown): Phase[] | undefined {
  return parseArgs(z.object({ phases: phasesArg }), { phases: v }).phases ?? undefined;
}

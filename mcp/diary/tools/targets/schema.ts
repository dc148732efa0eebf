/**
 * The arguments of create_training_target and update_training_target (spec
 * §5.3, §5.7): one schema whose result is the canonical {@link TargetInput}
 * with the defaults applied.
 */
import * as z from 'zod';
import type { TargetInput } from '../../units/target.ts';
import { date, isAbsent, POSITIVE, positiveInt, text, time, wholeNumber } from '../args/fields.ts';
import { parseArgs, reject } from '../args/parse.ts';
import { phasesArg } from './phase-schema.ts';

/** The exact VOLUME rule message of the contract. */
export const VOLUME_MESSAGE = 'VOLUME targets (no phases) require duration_s or distance_m';

/** The target arguments, in the order hosts list them (update puts `target_id` first). */
export const targetFields = {
  name: text('Display name, at most 45 characters', { nonBlank: true, max: 45 }),
  date: date('Day, YYYY-MM-DD; the diary applies the account time zone'),
  time: time('Local start time HH:MM (24-hour); default 18:00').nullish(),
  sport_id: positiveInt('Sport id from list_sports; default 1 (running)').nullish(),
  description: text('Free text, at most 500 characters', { max: 500 }).nullish(),
  // With phases the two metrics are ignored, so on their own they are checked for type only.
  duration_s: wholeNumber('VOLUME total duration in seconds; ignored when phases are given').nullish(),
  distance_m: wholeNumber('VOLUME total distance in metres; ignored when phases are given').nullish(),
  phases: phasesArg,
};

type TargetFields = { duration_s?: number | null; distance_m?: number | null; phases?: unknown[] | null };

/** A VOLUME target (no phases) carries exactly one positive metric. */
function volumeRules(ctx: z.core.ParsePayload<TargetFields>): void {
  const t = ctx.value;
  if (t.phases?.length) return;
  if (!isAbsent(t.duration_s) && t.duration_s < 1) return reject(ctx, ['duration_s'], POSITIVE);
  if (!isAbsent(t.distance_m) && t.distance_m < 1) return reject(ctx, ['distance_m'], POSITIVE);
  if (isAbsent(t.duration_s) && isAbsent(t.distance_m)) return reject(ctx, [], VOLUME_MESSAGE);
  if (!isAbsent(t.duration_s) && !isAbsent(t.distance_m)) {
    return reject(ctx, ['duration_s'], 'cannot be combined with distance_m on a VOLUME target; pass one of them');
  }
}

/** Applies the defaults of a full replace: omitted means default, not "keep". */
function toTargetInput(a: z.output<z.ZodObject<typeof targetFields>>): TargetInput {
  const phases = a.phases ?? undefined;
  const phased = phases !== undefined && phases.length > 0;
  return {
    name: a.name,
    date: a.date,
    time: a.time ?? '18:00',
    sport_id: a.sport_id ?? 1,
    description: a.description ?? undefined,
    duration_s: phased ? undefined : (a.duration_s ?? undefined),
    distance_m: phased ? undefined : (a.distance_m ?? undefined),
    phases,
  };
}

/** create_training_target's arguments. */
export const targetInput = z.object(targetFields).check(volumeRules).transform(toTargetInput);

/** update_training_target's arguments: the target id, then everything create takes. */
export const updateInput = z
  .object({ target_id: positiveInt('Training target id'), ...targetFields })
  .check(volumeRules)
  .transform(({ target_id, ...rest }) => ({ id: target_id, target: toTargetInput(rest) }));

/** Validates raw create/update target arguments (the same rules for both tools). */
export const targetArgs = (args: unknown): TargetInput => parseArgs(targetInput, args);

/**
 * Argument validation with the contract's messages (`<arg>: <advice>`). The
 * declared input schemas only carry types, so every semantic rule lives here and
 * runs before any upstream call.
 */
import {
  addDays,
  isRealDate,
  LABEL_ZONES,
  type Intensity,
  type IntensityLabel,
  type Phase,
  type SessionInput,
  type TargetInput,
} from './convert.ts';

/** A rejected argument; the message starts with the argument path and a colon. */
export class ArgError extends Error {}

/** Raw tool arguments as the SDK hands them over. */
export type Args = Record<string, unknown>;

const fail = (path: string, advice: string): never => {
  throw new ArgError(`${path}: ${advice}`);
};

/** Missing keys and JSON null are both "absent". */
export const isAbsent = (v: unknown): v is null | undefined => v === undefined || v === null;

const isPlainObject = (v: unknown): v is Args => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A whole number ≥ 1 (ids, durations, distances); undefined when absent and optional. */
export function positiveInt(v: unknown, path: string, required: true): number;
export function positiveInt(v: unknown, path: string, required?: false): number | undefined;
export function positiveInt(v: unknown, path: string, required = false): number | undefined {
  if (isAbsent(v)) return required ? fail(path, 'is required') : undefined;
  if (typeof v !== 'number' || !Number.isInteger(v)) return fail(path, 'must be a whole number');
  if (v < 1) return fail(path, 'must be a positive whole number');
  return v;
}

/** A whole number ≥ 0 (counts such as kcal, heart rate). */
export function countInt(v: unknown, path: string): number | undefined {
  if (isAbsent(v)) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v)) return fail(path, 'must be a whole number');
  if (v < 0) return fail(path, 'must be zero or a positive whole number');
  return v;
}

/** A finite number ≥ 0 (speed). */
export function nonNegativeNumber(v: unknown, path: string): number | undefined {
  if (isAbsent(v)) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v)) return fail(path, 'must be a number');
  if (v < 0) return fail(path, 'must be zero or a positive number');
  return v;
}

/** A string, optionally required non-blank and length-capped (UTF-16 units). */
export function text(v: unknown, path: string, opts: { required?: boolean; nonBlank?: boolean; max?: number } = {}): string | undefined {
  if (isAbsent(v)) return opts.required ? fail(path, 'is required') : undefined;
  if (typeof v !== 'string') return fail(path, 'must be a string');
  if (opts.nonBlank && v.trim() === '') return fail(path, 'must not be empty');
  if (opts.max !== undefined && v.length > opts.max) {
    return fail(path, `is ${v.length} characters long; the diary accepts at most ${opts.max}`);
  }
  return v;
}

/** `YYYY-MM-DD`, a real calendar day. */
export function date(v: unknown, path: string, required: true): string;
export function date(v: unknown, path: string, required?: false): string | undefined;
export function date(v: unknown, path: string, required = false): string | undefined {
  if (isAbsent(v)) return required ? fail(path, 'is required') : undefined;
  if (typeof v !== 'string') return fail(path, 'must be a string');
  if (!isRealDate(v)) return fail(path, 'must be a date in YYYY-MM-DD form');
  return v;
}

/** `HH:MM`, 24-hour. */
export function time(v: unknown, path: string): string | undefined {
  if (isAbsent(v)) return undefined;
  if (typeof v !== 'string') return fail(path, 'must be a string');
  if (!/^([01]\d|2[0-3]):[0-5]\d$/.test(v)) return fail(path, 'must be a 24-hour time in HH:MM form');
  return v;
}

/** A value from a fixed list. */
export function oneOf<T extends string>(v: unknown, path: string, values: readonly T[]): T | undefined {
  if (isAbsent(v)) return undefined;
  if (typeof v !== 'string') return fail(path, 'must be a string');
  if (!values.includes(v as T)) return fail(path, `must be one of ${values.join(', ')}`);
  return v as T;
}

/**
 * A date range with defaults computed from today's UTC date; `from_date` after
 * `to_date` is refused locally (other limits are upstream's).
 */
export function dateRange(args: Args, today: string, fromOffset: number, toOffset: number): { from: string; to: string } {
  const from = date(args.from_date, 'from_date') ?? addDays(today, fromOffset);
  const to = date(args.to_date, 'to_date') ?? addDays(today, toOffset);
  if (from > to) fail('from_date', 'must not be after to_date');
  return { from, to };
}

// ---------------------------------------------------------------- phases

const PHASE_TYPES = ['warmup', 'repeat', 'cooldown'] as const;
const LABELS = Object.keys(LABEL_ZONES) as IntensityLabel[];

function zone(v: unknown, path: string): number | undefined {
  if (isAbsent(v)) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > 5) return fail(path, 'must be a whole number from 1 to 5');
  return v;
}

function intensity(v: unknown, path: string): Intensity | undefined {
  if (isAbsent(v)) return undefined;
  if (!isPlainObject(v)) return fail(path, 'must be an object');
  // Every supplied member is validated even though only one wins (precedence in convert.ts).
  const out: Intensity = {
    hr_zone: zone(v.hr_zone, `${path}.hr_zone`),
    power_zone: zone(v.power_zone, `${path}.power_zone`),
    speed_zone: zone(v.speed_zone, `${path}.speed_zone`),
    label: oneOf(v.label, `${path}.label`, LABELS),
  };
  for (const k of Object.keys(out) as (keyof Intensity)[]) if (out[k] === undefined) delete out[k];
  return Object.keys(out).length ? out : undefined;
}

function rejectKeys(p: Args, path: string, keys: string[], advice: string): void {
  for (const k of keys) if (!isAbsent(p[k])) fail(`${path}.${k}`, advice);
}

function phase(v: unknown, path: string): Phase {
  if (!isPlainObject(v)) return fail(path, 'must be an object');
  if (isAbsent(v.type)) fail(`${path}.type`, 'is required');
  const type = oneOf(v.type, `${path}.type`, PHASE_TYPES)!;
  const name = text(v.name, `${path}.name`, { max: 45 });
  if (type !== 'repeat') {
    rejectKeys(v, path, ['reps', 'recovery'], 'not accepted on warmup/cooldown');
    if (!isAbsent(v.goal)) fail(`${path}.goal`, 'not accepted on warmup/cooldown; use duration_s');
    const duration_s = positiveInt(v.duration_s, `${path}.duration_s`, true);
    return { type, name, duration_s, intensity: intensity(v.intensity, `${path}.intensity`) };
  }
  if (!isAbsent(v.duration_s)) fail(`${path}.duration_s`, 'not accepted on repeat; put it in goal or recovery');
  if (isAbsent(v.reps)) fail(`${path}.reps`, 'is required');
  if (typeof v.reps !== 'number' || !Number.isInteger(v.reps) || v.reps < 2) fail(`${path}.reps`, 'must be a whole number of at least 2');
  if (isAbsent(v.goal)) fail(`${path}.goal`, 'is required');
  if (!isPlainObject(v.goal)) return fail(`${path}.goal`, 'must be an object');
  const dist = positiveInt(v.goal.distance_m, `${path}.goal.distance_m`);
  const dur = positiveInt(v.goal.duration_s, `${path}.goal.duration_s`);
  if ((dist === undefined) === (dur === undefined)) fail(`${path}.goal`, 'give exactly one of distance_m or duration_s');
  let recovery: { duration_s: number; name?: string } | undefined;
  if (!isAbsent(v.recovery)) {
    if (!isPlainObject(v.recovery)) return fail(`${path}.recovery`, 'must be an object');
    recovery = {
      duration_s: positiveInt(v.recovery.duration_s, `${path}.recovery.duration_s`, true),
      name: text(v.recovery.name, `${path}.recovery.name`, { max: 45 }),
    };
  }
  return {
    type,
    name,
    reps: v.reps as number,
    goal: dist !== undefined ? { distance_m: dist } : { duration_s: dur! },
    intensity: intensity(v.intensity, `${path}.intensity`),
    recovery,
  };
}

/** Validates the `phases` argument; absent → undefined, `[]` → `[]` (a VOLUME target). */
export function phases(v: unknown): Phase[] | undefined {
  if (isAbsent(v)) return undefined;
  if (!Array.isArray(v)) return fail('phases', 'must be an array');
  return v.map((p, i) => phase(p, `phases[${i}]`));
}

// ---------------------------------------------------------------- tool argument sets

/** The exact VOLUME rule message of the contract. */
export const VOLUME_MESSAGE = 'VOLUME targets (no phases) require duration_s or distance_m';

/** Validates create/update target arguments (same rules for both tools). */
export function targetArgs(args: Args): TargetInput {
  const name = text(args.name, 'name', { required: true, nonBlank: true, max: 45 })!;
  const d = date(args.date, 'date', true);
  const t = time(args.time, 'time') ?? '18:00';
  const sport_id = positiveInt(args.sport_id, 'sport_id') ?? 1;
  const description = text(args.description, 'description', { max: 500 });
  const ph = phases(args.phases);
  const phased = ph !== undefined && ph.length > 0;
  // With phases the two metrics are ignored, so they are checked for type only.
  const metric = (v: unknown, path: string): number | undefined =>
    phased ? (countInt(isAbsent(v) || typeof v !== 'number' ? v : Math.abs(v), path), undefined) : positiveInt(v, path);
  const duration_s = metric(args.duration_s, 'duration_s');
  const distance_m = metric(args.distance_m, 'distance_m');
  if (!phased) {
    if (duration_s === undefined && distance_m === undefined) throw new ArgError(VOLUME_MESSAGE);
    if (duration_s !== undefined && distance_m !== undefined) {
      fail('duration_s', 'cannot be combined with distance_m on a VOLUME target; pass one of them');
    }
  }
  return { name, date: d, time: t, sport_id, description, duration_s, distance_m, phases: ph };
}

/** Validates `create_training_session` arguments and applies its defaults. */
export function sessionArgs(args: Args): SessionInput {
  return {
    name: text(args.name, 'name', { required: true, nonBlank: true })!,
    date: date(args.date, 'date', true),
    time: time(args.time, 'time') ?? '18:00',
    duration_s: positiveInt(args.duration_s, 'duration_s', true),
    distance_m: countInt(args.distance_m, 'distance_m') ?? 0,
    kcal: countInt(args.kcal, 'kcal') ?? 0,
    hr_avg: countInt(args.hr_avg, 'hr_avg'),
    hr_max: countInt(args.hr_max, 'hr_max'),
    speed_kmh: nonNegativeNumber(args.speed_kmh, 'speed_kmh'),
    sport_id: positiveInt(args.sport_id, 'sport_id') ?? 1,
    note: text(args.note, 'note') ?? '',
  };
}

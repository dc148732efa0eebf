/**
 * Argument schemas with the contract's messages (spec §4). Each builder is at
 * once the validation and the JSON Schema a host sees. Every rule beyond the
 * type is a check, which JSON Schema does not show, so the listed schemas keep
 * to types, required lists and enums (no `minimum` or `pattern`) and every
 * message a caller reads is worded here. The first failing check aborts, as
 * the contract reports one problem per call.
 */
import * as z from 'zod';
import { isRealDate } from '../../units/date.ts';

/** A missing key and JSON null are both "absent" (spec §4). */
export const isAbsent = (v: unknown): v is null | undefined => v === undefined || v === null;

/** Advice shared with the object-level checks of the target schemas. */
export const REQUIRED = 'is required';
export const POSITIVE = 'must be a positive whole number';
export const tooLong = (s: string, max: number): string => `is ${s.length} characters long; the diary accepts at most ${max}`;

/** The message of a type mismatch: the advice, or "is required" when a required argument is absent. */
const typeError = (advice: string) => ({ error: (iss: { input?: unknown }) => (isAbsent(iss.input) ? REQUIRED : advice) });

/** A rule on a well-typed value, worded as the contract's advice; a failure ends validation. */
function rule<T>(ok: (v: T) => boolean, advice: string | ((v: T) => string)): z.core.$ZodCheck<T> {
  return z.check<T>((ctx) => {
    if (!ok(ctx.value)) ctx.issues.push({ code: 'custom', input: ctx.value, message: typeof advice === 'string' ? advice : advice(ctx.value) });
  });
}

// JSON Schema would show `.int()` as a minimum/maximum pair, so wholeness is a rule and the
// advertised type is set by hand, after the rules, on the schema that is listed.
const listedInteger = <S extends z.ZodNumber>(s: S, description: string) => s.meta({ type: 'integer' }).describe(description);
const whole = (advice: string) => z.number(typeError(advice)).check(rule(Number.isInteger, advice));

/** A whole number, any sign (the range rules depend on other arguments). */
export const wholeNumber = (description: string, advice = 'must be a whole number') => listedInteger(whole(advice), description);

/** A whole number ≥ 1: ids, durations, distances. */
export const positiveInt = (description: string) =>
  listedInteger(whole('must be a whole number').check(rule((v: number) => v >= 1, POSITIVE)), description);

/** A whole number ≥ 0: counts such as kcal or a heart rate. */
export const countInt = (description: string) =>
  listedInteger(whole('must be a whole number').check(rule((v: number) => v >= 0, 'must be zero or a positive whole number')), description);

/** A zone index 1–5. */
export const zone = (description: string) => {
  const advice = 'must be a whole number from 1 to 5';
  return listedInteger(z.number(typeError(advice)).check(rule((v: number) => Number.isInteger(v) && v >= 1 && v <= 5, advice)), description);
};

/** A number ≥ 0 (speed). */
export const nonNegativeNumber = (description: string) =>
  z.number(typeError('must be a number')).check(rule((v: number) => v >= 0, 'must be zero or a positive number')).describe(description);

/** A string, optionally required non-blank and length-capped (UTF-16 units, as upstream counts). */
export function text(description: string, opts: { nonBlank?: boolean; max?: number } = {}) {
  const { nonBlank = false, max = Infinity } = opts;
  return z
    .string(typeError('must be a string'))
    .check(rule((v: string) => !nonBlank || v.trim() !== '', 'must not be empty'))
    .check(rule((v: string) => v.length <= max, (v) => tooLong(v, max)))
    .describe(description);
}

/** `YYYY-MM-DD`, a real calendar day. */
export const date = (description: string) =>
  z.string(typeError('must be a string')).check(rule(isRealDate, 'must be a date in YYYY-MM-DD form')).describe(description);

/** `HH:MM`, 24-hour. */
export const time = (description: string) =>
  z
    .string(typeError('must be a string'))
    .check(rule((v: string) => /^([01]\d|2[0-3]):[0-5]\d$/.test(v), 'must be a 24-hour time in HH:MM form'))
    .describe(description);

/** A value from a fixed list (listed as an enum). */
export function oneOf<const T extends readonly [string, ...string[]]>(values: T, description: string) {
  const advice = (input: unknown): string => (isAbsent(input) ? REQUIRED : typeof input !== 'string' ? 'must be a string' : `must be one of ${values.join(', ')}`);
  return z.enum(values, { error: (iss) => advice(iss.input) }).describe(description);
}

/** An object of named members; unknown keys are ignored, not refused (spec §5.15). */
export const looseObject = <S extends z.ZodRawShape>(shape: S) => z.looseObject(shape, { error: 'must be an object' });

/**
 * The from/to date range of the reading tools. Defaults come from today's UTC
 * date, so the schema is built with the clock it reads; `from_date` after
 * `to_date` is refused locally, every other limit (the 45-day week-summary cap)
 * is upstream's to enforce (spec §4).
 */
import * as z from 'zod';
import { addDays } from '../../units/date.ts';
import { date } from './fields.ts';
import { parseArgs, reject } from './parse.ts';

/** Each bound's default as days from today, and the text hosts see for it. */
export type RangeDefaults = { fromOffset: number; toOffset: number; fromHelp: string; toHelp: string };

/**
 * `from_date` and `to_date` plus any further arguments; the result carries the
 * resolved `from` and `to` instead of the two raw dates.
 */
type RawRange = { from_date?: string | null; to_date?: string | null };

export function rangeInput<E extends z.ZodRawShape = Record<never, never>>(today: () => string, d: RangeDefaults, extra?: E) {
  const shape = {
    from_date: date(`${d.fromHelp} (YYYY-MM-DD)`).nullish(),
    to_date: date(`${d.toHelp} (YYYY-MM-DD)`).nullish(),
    ...(extra as E),
  };
  return z.object(shape).transform((args, ctx) => {
    const { from_date, to_date, ...rest } = args as typeof args & RawRange;
    const from = from_date ?? addDays(today(), d.fromOffset);
    const to = to_date ?? addDays(today(), d.toOffset);
    if (from > to) {
      reject(ctx, ['from_date'], 'must not be after to_date');
      return z.NEVER;
    }
    return { ...rest, from, to };
  });
}

/** The range alone, resolved against a given today (what a handler receives as `from`/`to`). */
export function dateRange(args: unknown, today: string, fromOffset: number, toOffset: number): { from: string; to: string } {
  return parseArgs(rangeInput(() => today, { fromOffset, toOffset, fromHelp: 'First day', toHelp: 'Last day' }), args);
}

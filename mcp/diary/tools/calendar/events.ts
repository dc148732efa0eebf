/** `get_calendar_events` (spec §5.8), and the calendar read that list_training_targets shares. */
import { toDottedDate } from '../../units/date.ts';
import { httpError } from '../../upstream/errors.ts';
import { rangeInput } from '../args/range.ts';
import { defineTool, READ_ONLY, type DiaryTool } from '../define.ts';
import { today, type Deps } from '../deps.ts';
import { jsonResult, parseBody } from '../result.ts';

/** Calendar events for an inclusive range, dates sent as D.M.YYYY. */
export async function calendarEvents(deps: Deps, from: string, to: string): Promise<unknown> {
  const action = 'listing calendar events';
  const q = `start=${toDottedDate(from)}&end=${toDottedDate(to)}`;
  const r = await deps.upstream.call({ action, method: 'GET', path: `/training/getCalendarEvents?${q}` });
  if (r.status !== 200) throw httpError(action, r.status, r.text);
  return parseBody(action, r.text);
}

export function calendarEventsTool(deps: Deps): DiaryTool {
  return defineTool({
    name: 'get_calendar_events',
    title: 'Calendar events',
    description:
      'Returns the diary calendar between two dates (inclusive) as a JSON array, unfiltered and as received: planned targets (type TRAININGTARGET, duration in milliseconds), recorded exercises (start in epoch seconds), fitness tests. Defaults: today to today + 30 days.',
    annotations: READ_ONLY,
    input: rangeInput(() => today(deps), { fromOffset: 0, toOffset: 30, fromHelp: 'First day; default today', toHelp: 'Last day; default today + 30 days' }),
    async run({ from, to }) {
      return jsonResult(await calendarEvents(deps, from, to));
    },
  });
}

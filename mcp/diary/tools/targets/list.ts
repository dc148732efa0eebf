/** `list_training_targets` (spec §5.4): the targets among the calendar events, one line each. */
import { targetEventLine, targetEvents } from '../../units/calendar.ts';
import { rangeInput } from '../args/range.ts';
import { calendarEvents } from '../calendar/events.ts';
import { defineTool, READ_ONLY, type DiaryTool } from '../define.ts';
import { today, type Deps } from '../deps.ts';
import { textResult } from '../result.ts';

export function listTargetsTool(deps: Deps): DiaryTool {
  return defineTool({
    name: 'list_training_targets',
    title: 'List planned workouts',
    description:
      'Lists training targets between two dates (inclusive), one line per target: "<id>: <title> (<start>)". Defaults: from_date today (UTC), to_date today + 30 days.',
    annotations: READ_ONLY,
    input: rangeInput(() => today(deps), { fromOffset: 0, toOffset: 30, fromHelp: 'First day; default today', toHelp: 'Last day; default today + 30 days' }),
    async run({ from, to }) {
      const lines = targetEvents(await calendarEvents(deps, from, to)).map(targetEventLine);
      return textResult(lines.length ? lines.join('\n') : `No training targets between ${from} and ${to}.`);
    },
  });
}

/** `get_calendar_week_summary` (spec §5.9): passed through; the 45-day cap is upstream's. */
import { toDottedDate } from '../../units/date.ts';
import { httpError } from '../../upstream/errors.ts';
import { rangeInput } from '../args/range.ts';
import { defineTool, READ_ONLY, type DiaryTool } from '../define.ts';
import { today, type Deps } from '../deps.ts';
import { jsonResult, parseBody, ToolFailure } from '../result.ts';

export function weekSummaryTool(deps: Deps): DiaryTool {
  return defineTool({
    name: 'get_calendar_week_summary',
    title: 'Week summary',
    description:
      'Returns one entry per ISO week touching the range, as received from the diary (entries are currently empty objects). The diary caps the range at 45 days. Defaults: today - 28 days to today.',
    annotations: READ_ONLY,
    input: rangeInput(() => today(deps), { fromOffset: -28, toOffset: 0, fromHelp: 'First day; default today - 28 days', toHelp: 'Last day; default today' }),
    async run({ from, to }) {
      const action = 'reading the week summary';
      const r = await deps.upstream.call({
        action,
        method: 'POST',
        path: '/training/getCalendarWeekSummary',
        body: { from: toDottedDate(from), to: toDottedDate(to) },
      });
      if (r.status === 400) throw new ToolFailure(`Week summary refused by the diary (HTTP 400): ${r.text.trim()}`);
      if (r.status !== 200) throw httpError(action, r.status, r.text);
      return jsonResult(parseBody(action, r.text));
    },
  });
}

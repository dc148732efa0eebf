/** `get_progress_summary` (spec §5.10). */
import { toDashedDate } from '../../units/date.ts';
import { toProgressSummary } from '../../units/progress.ts';
import { httpError } from '../../upstream/errors.ts';
import { oneOf, text } from '../args/fields.ts';
import { rangeInput } from '../args/range.ts';
import { defineTool, READ_ONLY, type DiaryTool } from '../define.ts';
import { today, type Deps } from '../deps.ts';
import { jsonResult, parseBody } from '../result.ts';

const progressInput = (deps: Deps) =>
  rangeInput(
    () => today(deps),
    { fromOffset: -90, toOffset: 0, fromHelp: 'First day; default today - 90 days', toHelp: 'Last day; default today' },
    {
      group: text('Time-bucket granularity; default MONTH (DAY, WEEK, YEAR are unconfirmed)', { nonBlank: true }).nullish(),
      time_frame: oneOf(['6w', '3m', '1y'], 'Chart time frame; default 3m').nullish(),
    },
  ).transform(({ from, to, group, time_frame }) => ({ from, to, group: group ?? 'MONTH', timeFrame: time_frame ?? '3m' }));

export function progressSummaryTool(deps: Deps): DiaryTool {
  return defineTool({
    name: 'get_progress_summary',
    title: 'Progress summary',
    description:
      'Aggregates sessions over a range: number_of_sessions, total_duration_s (seconds), total_distance_m (metres), total_kcal, total_ascent_m/total_descent_m (metres, omitted when 0), sport_breakdown, heart_rate_zones, training_benefit_breakdown. ' +
      'Defaults: today - 90 days to today, group MONTH (time-bucket granularity, not a sport filter), time_frame 3m (or 6w, 1y).',
    annotations: READ_ONLY,
    input: progressInput(deps),
    async run({ from, to, group, timeFrame }) {
      const action = 'reading the progress summary';
      const r = await deps.upstream.call({
        action,
        method: 'POST',
        path: '/progress/getProgressViewSummaryAsJson',
        body: { from: toDashedDate(from), to: toDashedDate(to), group, timeFrame },
      });
      // Upstream has answered 404 for "no data"; it reads as an all-zero summary.
      if (r.status === 404) return jsonResult(toProgressSummary(undefined, from, to));
      if (r.status !== 200) throw httpError(action, r.status, r.text);
      return jsonResult(toProgressSummary(parseBody(action, r.text), from, to));
    },
  });
}

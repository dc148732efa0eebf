/** `get_calendar_events`, `get_calendar_week_summary` and `get_progress_summary`. */
import * as z from 'zod';
import type { McpServer } from '@modelcontextprotocol/server';
import { toDashedDate, toDottedDate, toProgressSummary } from '../convert.ts';
import { httpError } from '../upstream/errors.ts';
import { dateRange, oneOf, text, type Args } from '../validate.ts';
import { READ_ONLY } from './account.ts';
import { today, type Deps } from './deps.ts';
import { calendarEvents } from './targets.ts';
import { guard, jsonResult, parseBody, ToolFailure } from './result.ts';
import { optDate, optStr } from './schema.ts';

const TIME_FRAMES = ['6w', '3m', '1y'] as const;

/** Registers the calendar and progress tools. */
export function registerCalendarTools(server: McpServer, deps: Deps): void {
  server.registerTool(
    'get_calendar_events',
    {
      title: 'Calendar events',
      description:
        'Returns the diary calendar between two dates (inclusive) as a JSON array, unfiltered and as received: planned targets (type TRAININGTARGET, duration in milliseconds), recorded exercises (start in epoch seconds), fitness tests. Defaults: today to today + 30 days.',
      inputSchema: z.object({ from_date: optDate('First day; default today'), to_date: optDate('Last day; default today + 30 days') }),
      annotations: READ_ONLY,
    },
    (args) =>
      guard('get_calendar_events', async () => {
        const { from, to } = dateRange(args as Args, today(deps), 0, 30);
        return jsonResult(await calendarEvents(deps, from, to));
      }),
  );

  server.registerTool(
    'get_calendar_week_summary',
    {
      title: 'Week summary',
      description:
        'Returns one entry per ISO week touching the range, as received from the diary (entries are currently empty objects). The diary caps the range at 45 days. Defaults: today - 28 days to today.',
      inputSchema: z.object({ from_date: optDate('First day; default today - 28 days'), to_date: optDate('Last day; default today') }),
      annotations: READ_ONLY,
    },
    (args) =>
      guard('get_calendar_week_summary', async () => {
        const { from, to } = dateRange(args as Args, today(deps), -28, 0);
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
      }),
  );

  server.registerTool(
    'get_progress_summary',
    {
      title: 'Progress summary',
      description:
        'Aggregates sessions over a range: number_of_sessions, total_duration_s (seconds), total_distance_m (metres), total_kcal, total_ascent_m/total_descent_m (metres, omitted when 0), sport_breakdown, heart_rate_zones, training_benefit_breakdown. ' +
        'Defaults: today - 90 days to today, group MONTH (time-bucket granularity, not a sport filter), time_frame 3m (or 6w, 1y).',
      inputSchema: z.object({
        from_date: optDate('First day; default today - 90 days'),
        to_date: optDate('Last day; default today'),
        group: optStr('Time-bucket granularity; default MONTH (DAY, WEEK, YEAR are unconfirmed)'),
        time_frame: z.enum(TIME_FRAMES).describe('Chart time frame; default 3m').nullish(),
      }),
      annotations: READ_ONLY,
    },
    (args) =>
      guard('get_progress_summary', async () => {
        const a = args as Args;
        const { from, to } = dateRange(a, today(deps), -90, 0);
        const group = text(a.group, 'group', { nonBlank: true }) ?? 'MONTH';
        const timeFrame = oneOf(a.time_frame, 'time_frame', TIME_FRAMES) ?? '3m';
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
      }),
  );
}

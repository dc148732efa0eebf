/** The calendar tools: `get_calendar_events`, `get_calendar_week_summary` and `get_progress_summary`. */
import type { DiaryTool } from '../define.ts';
import type { Deps } from '../deps.ts';
import { calendarEventsTool } from './events.ts';
import { progressSummaryTool } from './progress.ts';
import { weekSummaryTool } from './week-summary.ts';

/** The calendar and progress tools, in the order hosts list them. */
export function calendarTools(deps: Deps): DiaryTool[] {
  return [calendarEventsTool(deps), weekSummaryTool(deps), progressSummaryTool(deps)];
}

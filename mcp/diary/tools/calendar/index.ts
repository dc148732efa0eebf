/** The calendar tools: `get_calendar_events`, `get_calendar_week_summary` and `get_progress_summary`. */
import type { McpServer } from '@modelcontextprotocol/server';
import type { Deps } from '../deps.ts';
import { registerCalendarEvents } from './events.ts';
import { registerProgressSummary } from './progress.ts';
import { registerWeekSummary } from './week-summary.ts';

/** Registers the calendar and progress tools, in the order hosts list them. */
export function registerCalendarTools(server: McpServer, deps: Deps): void {
  registerCalendarEvents(server, deps);
  registerWeekSummary(server, deps);
  registerProgressSummary(server, deps);
}

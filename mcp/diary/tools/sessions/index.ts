/** The four session tools: log (confirmed), list, summary, details. */
import type { DiaryTool } from '../define.ts';
import type { Deps } from '../deps.ts';
import { sessionDetailsTool, sessionSummaryTool } from './analysis.ts';
import { createSessionTool } from './create.ts';
import { listSessionsTool } from './list.ts';

/** The session tools, in the order hosts list them. */
export function sessionTools(deps: Deps): DiaryTool[] {
  return [createSessionTool(deps), listSessionsTool(deps), sessionSummaryTool(deps), sessionDetailsTool(deps)];
}

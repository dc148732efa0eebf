/** The four session tools: log (confirmed), list, summary, details. */
import type { DiaryTool } from '../define.ts';
import type { Deps } from '../deps.ts';
import { trainingDetailsTool, trainingSummaryTool } from './analysis.ts';
import { createTrainingTool } from './create.ts';
import { listTrainingsTool } from './list.ts';

/** The session tools, in the order hosts list them. */
export function trainingTools(deps: Deps): DiaryTool[] {
  return [createTrainingTool(deps), listTrainingsTool(deps), trainingSummaryTool(deps), trainingDetailsTool(deps)];
}

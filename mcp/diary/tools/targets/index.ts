/** The five training-target tools: create, list, get, update (full replace) and delete (confirmed). */
import type { DiaryTool } from '../define.ts';
import type { Deps } from '../deps.ts';
import { createTargetTool } from './create.ts';
import { deleteTargetTool } from './delete.ts';
import { getTargetTool } from './get.ts';
import { listTargetsTool } from './list.ts';
import { updateTargetTool } from './update.ts';

/** The target tools, in the order hosts list them. */
export function targetTools(deps: Deps): DiaryTool[] {
  return [createTargetTool(deps), listTargetsTool(deps), getTargetTool(deps), updateTargetTool(deps), deleteTargetTool(deps)];
}

/** The account tools: `get_user_info` and `list_sports`. */
import type { DiaryTool } from '../define.ts';
import type { Deps } from '../deps.ts';
import { listSportsTool } from './sports.ts';
import { userInfoTool } from './user.ts';

/** The account tools, in the order hosts list them. */
export function accountTools(deps: Deps): DiaryTool[] {
  return [userInfoTool(deps), listSportsTool(deps)];
}

/** `get_user_info` (spec §5.1), and the current-user read that list_training_sessions shares. */
import * as z from 'zod';
import { toAccount } from '../../units/account.ts';
import { httpError } from '../../upstream/errors.ts';
import { defineTool, READ_ONLY, type DiaryTool } from '../define.ts';
import type { Deps } from '../deps.ts';
import { jsonResult, parseBody } from '../result.ts';

/** Reads the current user body (also used by `list_training_sessions` for the user id). */
export async function readCurrentUser(deps: Deps): Promise<unknown> {
  const action = 'reading the current user';
  const r = await deps.upstream.call({ action, method: 'GET', path: '/api/account/users/current/user' });
  if (r.status !== 200) throw httpError(action, r.status, r.text);
  return parseBody(action, r.text);
}

export function userInfoTool(deps: Deps): DiaryTool {
  return defineTool({
    name: 'get_user_info',
    title: 'Diary account',
    description:
      'Returns the diary account every tool acts as: {id, email, first_name, last_name, country}. Names and country are omitted when the account has none.',
    annotations: READ_ONLY,
    input: z.object({}),
    async run() {
      return jsonResult(toAccount(await readCurrentUser(deps)));
    },
  });
}

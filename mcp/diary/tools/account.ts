/** `get_user_info` and `list_sports`. */
import * as z from 'zod';
import type { McpServer } from '@modelcontextprotocol/server';
import { toAccount } from '../convert.ts';
import { httpError } from '../upstream/errors.ts';
import type { Deps } from './deps.ts';
import { guard, jsonResult, parseBody } from './result.ts';

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true };

/** Reads the current user body (also used by `list_training_sessions` for the user id). */
export async function readCurrentUser(deps: Deps): Promise<unknown> {
  const action = 'reading the current user';
  const r = await deps.upstream.call({ action, method: 'GET', path: '/api/account/users/current/user' });
  if (r.status !== 200) throw httpError(action, r.status, r.text);
  return parseBody(action, r.text);
}

/** Registers the account tools. */
export function registerAccountTools(server: McpServer, deps: Deps): void {
  server.registerTool(
    'get_user_info',
    {
      title: 'Diary account',
      description:
        'Returns the diary account every tool acts as: {id, email, first_name, last_name, country}. Names and country are omitted when the account has none.',
      inputSchema: z.object({}),
      annotations: READ_ONLY,
    },
    () => guard('get_user_info', async () => jsonResult(toAccount(await readCurrentUser(deps)))),
  );

  server.registerTool(
    'list_sports',
    {
      title: 'Sport catalogue',
      description:
        'Returns the sport catalogue as a JSON object mapping numeric sport ids (string keys) to name constants, e.g. {"1": "RUNNING", "2": "CYCLING"}. It is the source of valid sport_id values and changes over time, so fetch it rather than hard-coding ids.',
      inputSchema: z.object({}),
      annotations: READ_ONLY,
    },
    () =>
      guard('list_sports', async () => {
        const action = 'reading the sport catalogue';
        const r = await deps.upstream.call({ action, method: 'GET', path: '/api/sports/sports', auth: false });
        if (r.status !== 200) throw httpError(action, r.status, r.text);
        return jsonResult(parseBody(action, r.text));
      }),
  );
}

export { READ_ONLY };

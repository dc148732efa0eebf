/** `list_sports` (spec §5.2): the catalogue as received; it needs no login. */
import * as z from 'zod';
import { httpError } from '../../upstream/errors.ts';
import { defineTool, READ_ONLY, type DiaryTool } from '../define.ts';
import type { Deps } from '../deps.ts';
import { jsonResult, parseBody } from '../result.ts';

export function listSportsTool(deps: Deps): DiaryTool {
  return defineTool({
    name: 'list_sports',
    title: 'Sport catalogue',
    description:
      'Returns the sport catalogue as a JSON object mapping numeric sport ids (string keys) to name constants, e.g. {"1": "RUNNING", "2": "CYCLING"}. It is the source of valid sport_id values and changes over time, so fetch it rather than hard-coding ids.',
    annotations: READ_ONLY,
    input: z.object({}),
    async run() {
      const action = 'reading the sport catalogue';
      const r = await deps.upstream.call({ action, method: 'GET', path: '/api/sports/sports', auth: false });
      if (r.status !== 200) throw httpError(action, r.status, r.text);
      return jsonResult(parseBody(action, r.text));
    },
  });
}

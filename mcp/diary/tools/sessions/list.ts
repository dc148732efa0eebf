/** `list_training_sessions` (spec §5.12): the user id first, then the history. */
import { toSessionListItem } from '../../units/session-list.ts';
import { httpError, UpstreamError } from '../../upstream/errors.ts';
import { readCurrentUser } from '../account/user.ts';
import { rangeInput } from '../args/range.ts';
import { defineTool, READ_ONLY, type DiaryTool } from '../define.ts';
import { today, type Deps } from '../deps.ts';
import { jsonResult, parseBody } from '../result.ts';

/** The numeric user id the history endpoint wants, read on every call. */
async function userId(deps: Deps): Promise<number> {
  try {
    const user = (await readCurrentUser(deps)) as { user?: { id?: unknown } };
    const id = user?.user?.id;
    if (typeof id !== 'number') throw new UpstreamError('the current user has no numeric id');
    return id;
  } catch (err) {
    throw new UpstreamError(`could not resolve the account's user id: ${err instanceof Error ? err.message : String(err)}`);
  }
}

export function listSessionsTool(deps: Deps): DiaryTool {
  return defineTool({
    name: 'list_training_sessions',
    title: 'List sessions',
    description:
      'Lists completed sessions between two dates (inclusive) as a JSON array: id, sport_id, sport_name (in the account language), start_time (ISO 8601), session_duration_s (seconds), distance_m (metres), hr_avg (bpm), calories, recovery_time_s, note, has_training_target, is_test. Defaults: today - 30 days to today.',
    annotations: READ_ONLY,
    input: rangeInput(() => today(deps), { fromOffset: -30, toOffset: 0, fromHelp: 'First day; default today - 30 days', toHelp: 'Last day; default today' }),
    async run({ from, to }) {
      const id = await userId(deps);
      const action = 'listing sessions';
      const r = await deps.upstream.call({ action, method: 'POST', path: '/api/training/history', body: { userId: id, fromDate: from, toDate: to } });
      if (r.status !== 200) throw httpError(action, r.status, r.text);
      const rows = parseBody(action, r.text);
      return jsonResult(Array.isArray(rows) ? rows.map(toSessionListItem) : []);
    },
  });
}

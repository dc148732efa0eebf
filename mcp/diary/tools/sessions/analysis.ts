/** `get_training_session_summary` and `get_training_session_details` (spec §5.13, §5.14). */
import * as z from 'zod';
import { toSessionDetails } from '../../units/session-details.ts';
import { toSessionSummary } from '../../units/session-summary.ts';
import { httpError } from '../../upstream/errors.ts';
import { positiveInt } from '../args/fields.ts';
import { defineTool, READ_ONLY, type DiaryTool } from '../define.ts';
import type { Deps } from '../deps.ts';
import { jsonResult, parseBody, textResult, ToolFailure } from '../result.ts';

const sessionIdInput = z.object({ session_id: positiveInt('Session id (from list_training_sessions)') });

/** One analysis body; undefined when the session does not exist (a normal result). */
async function analysis(deps: Deps, id: number, kind: 'summary' | 'details'): Promise<unknown | undefined> {
  const action = `reading the session ${kind}`;
  const r = await deps.upstream.call({ action, method: 'GET', path: `/api/training/analysis/${id}/${kind}` });
  if (r.status === 404) return undefined;
  if (r.status === 403) throw new ToolFailure(`Training session ${id} belongs to another account.`);
  if (r.status !== 200) throw httpError(action, r.status, r.text);
  return parseBody(action, r.text);
}

export function sessionSummaryTool(deps: Deps): DiaryTool {
  return defineTool({
    name: 'get_training_session_summary',
    title: 'Session summary',
    description:
      'Returns one session: id, name, sport_id, start_time/stop_time (ISO 8601), session_duration_s (seconds), distance_m (metres), hr_avg/hr_max (bpm), calories, training_load, note.',
    annotations: READ_ONLY,
    input: sessionIdInput,
    async run({ session_id: id }) {
      const body = await analysis(deps, id, 'summary');
      return body === undefined ? textResult(`No session with id ${id}.`) : jsonResult(toSessionSummary(body));
    },
  });
}

export function sessionDetailsTool(deps: Deps): DiaryTool {
  return defineTool({
    name: 'get_training_session_details',
    title: 'Session details',
    description:
      'Returns lap- and rep-level details of one session per exercise: duration_s, distance_m, ascent_m, hr_bpm, speed_kmh, power_w, cadence statistics, time in heart-rate/speed/power zones (time_s), laps, training-target reps with pace_s_per_km, and the names of the recorded sample metrics (sample values are not returned).',
    annotations: READ_ONLY,
    input: sessionIdInput,
    async run({ session_id: id }) {
      const body = await analysis(deps, id, 'details');
      return body === undefined ? textResult(`No session with id ${id}.`) : jsonResult(toSessionDetails(body));
    },
  });
}

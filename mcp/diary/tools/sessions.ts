/** The four session tools: log (confirmed), list, summary, details. */
import * as z from 'zod';
import type { McpServer, ServerContext } from '@modelcontextprotocol/server';
import {
  humanDuration,
  localOffsetMinutes,
  sessionToWire,
  toSessionDetails,
  toSessionListItem,
  toSessionSummary,
} from '../convert.ts';
import { confirmGate } from '../confirm.ts';
import { httpError, UpstreamError } from '../upstream/errors.ts';
import { dateRange, positiveInt, sessionArgs, type Args } from '../validate.ts';
import { READ_ONLY, readCurrentUser } from './account.ts';
import { today, type Deps } from './deps.ts';
import { guard, jsonResult, parseBody, textResult, ToolFailure } from './result.ts';
import { int, optDate, optInt, optNum, optStr, str } from './schema.ts';

async function analysis(deps: Deps, id: number, kind: 'summary' | 'details'): Promise<unknown | undefined> {
  const action = `reading the session ${kind}`;
  const r = await deps.upstream.call({ action, method: 'GET', path: `/api/training/analysis/${id}/${kind}` });
  if (r.status === 404) return undefined;
  if (r.status === 403) throw new ToolFailure(`Training session ${id} belongs to another account.`);
  if (r.status !== 200) throw httpError(action, r.status, r.text);
  return parseBody(action, r.text);
}

/** Registers the session tools. */
export function registerSessionTools(server: McpServer, deps: Deps): void {
  server.registerTool(
    'create_training_session',
    {
      title: 'Log a completed session',
      description:
        'Logs a manually entered, already completed training session. This writes a real session that counts toward the training statistics: use it only for sessions the user asked to log. Asks the user to confirm first where the host supports it. ' +
        'Units: duration_s seconds, distance_m metres, kcal kilocalories, hr_avg/hr_max bpm (omit or 0 for unset), speed_kmh km/h (omit or 0 for unset). The new id is not returned; find it with list_training_sessions.',
      inputSchema: z.object({
        name: str('Display name'),
        date: str('Day of the session, YYYY-MM-DD'),
        time: optStr('Local start time HH:MM; default 18:00'),
        duration_s: int('Duration in seconds, at least 1'),
        distance_m: optInt('Distance in metres; default 0'),
        kcal: optInt('Kilocalories; default 0'),
        hr_avg: optInt('Average heart rate in bpm; omit or 0 for unset'),
        hr_max: optInt('Maximum heart rate in bpm; omit or 0 for unset'),
        speed_kmh: optNum('Average speed in km/h; omit or 0 for unset'),
        sport_id: optInt('Sport id from list_sports; default 1 (running)'),
        note: optStr('Free text'),
      }),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    (args, ctx: ServerContext) =>
      guard('create_training_session', async () => {
        const s = sessionArgs(args as Args);
        const prompt =
          `Record ${JSON.stringify(s.name)} as a completed session on ${s.date} at ${s.time}, lasting ${humanDuration(s.duration_s)}? ` +
          'It will be added to the diary and count toward the training statistics.';
        const gate = confirmGate(server, ctx, prompt);
        if (gate) return gate;
        const body = sessionToWire(s, localOffsetMinutes(s.date, s.time));
        const action = 'logging the training session';
        const r = await deps.upstream.call({ action, method: 'POST', path: '/api/training/create', body });
        if (r.status === 400) throw new ToolFailure('The diary rejected the session (HTTP 400). A start time in the future is the usual cause.');
        if (r.status < 200 || r.status >= 300) throw httpError(action, r.status, r.text);
        return textResult(
          `Logged training session ${JSON.stringify(s.name)} starting ${String(body.date)} (${s.duration_s} s). ` +
            "It counts toward the diary's training statistics; use list_training_sessions to find its id.",
        );
      }),
  );

  server.registerTool(
    'list_training_sessions',
    {
      title: 'List sessions',
      description:
        'Lists completed sessions between two dates (inclusive) as a JSON array: id, sport_id, sport_name (in the account language), start_time (ISO 8601), session_duration_s (seconds), distance_m (metres), hr_avg (bpm), calories, recovery_time_s, note, has_training_target, is_test. Defaults: today - 30 days to today.',
      inputSchema: z.object({ from_date: optDate('First day; default today - 30 days'), to_date: optDate('Last day; default today') }),
      annotations: READ_ONLY,
    },
    (args) =>
      guard('list_training_sessions', async () => {
        const { from, to } = dateRange(args as Args, today(deps), -30, 0);
        let userId: unknown;
        try {
          const user = (await readCurrentUser(deps)) as { user?: { id?: unknown } };
          userId = user?.user?.id;
          if (typeof userId !== 'number') throw new UpstreamError('the current user has no numeric id');
        } catch (err) {
          throw new UpstreamError(`could not resolve the account's user id: ${err instanceof Error ? err.message : String(err)}`);
        }
        const action = 'listing sessions';
        const r = await deps.upstream.call({ action, method: 'POST', path: '/api/training/history', body: { userId, fromDate: from, toDate: to } });
        if (r.status !== 200) throw httpError(action, r.status, r.text);
        const rows = parseBody(action, r.text);
        return jsonResult(Array.isArray(rows) ? rows.map(toSessionListItem) : []);
      }),
  );

  server.registerTool(
    'get_training_session_summary',
    {
      title: 'Session summary',
      description:
        'Returns one session: id, name, sport_id, start_time/stop_time (ISO 8601), session_duration_s (seconds), distance_m (metres), hr_avg/hr_max (bpm), calories, training_load, note.',
      inputSchema: z.object({ session_id: int('Session id (from list_training_sessions)') }),
      annotations: READ_ONLY,
    },
    (args) =>
      guard('get_training_session_summary', async () => {
        const id = positiveInt((args as Args).session_id, 'session_id', true);
        const body = await analysis(deps, id, 'summary');
        return body === undefined ? textResult(`No session with id ${id}.`) : jsonResult(toSessionSummary(body));
      }),
  );

  server.registerTool(
    'get_training_session_details',
    {
      title: 'Session details',
      description:
        'Returns lap- and rep-level details of one session per exercise: duration_s, distance_m, ascent_m, hr_bpm, speed_kmh, power_w, cadence statistics, time in heart-rate/speed/power zones (time_s), laps, training-target reps with pace_s_per_km, and the names of the recorded sample metrics (sample values are not returned).',
      inputSchema: z.object({ session_id: int('Session id (from list_training_sessions)') }),
      annotations: READ_ONLY,
    },
    (args) =>
      guard('get_training_session_details', async () => {
        const id = positiveInt((args as Args).session_id, 'session_id', true);
        const body = await analysis(deps, id, 'details');
        return body === undefined ? textResult(`No session with id ${id}.`) : jsonResult(toSessionDetails(body));
      }),
  );
}

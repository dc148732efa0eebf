/** `create_training_session` (spec §5.11): logs a completed session after the user confirms. */
import type { McpServer, ServerContext } from '@modelcontextprotocol/server';
import { confirmGate } from '../../confirm.ts';
import { localOffsetMinutes } from '../../units/date.ts';
import { humanDuration } from '../../units/duration.ts';
import { sessionToWire } from '../../units/session-body.ts';
import { httpError } from '../../upstream/errors.ts';
import { defineTool, type DiaryTool } from '../define.ts';
import type { Deps } from '../deps.ts';
import { textResult, ToolFailure } from '../result.ts';
import { sessionInput } from './schema.ts';

export function createSessionTool(deps: Deps): DiaryTool {
  return defineTool({
    name: 'create_training_session',
    title: 'Log a completed session',
    description:
      'Logs a manually entered, already completed training session. This writes a real session that counts toward the training statistics: use it only for sessions the user asked to log. Asks the user to confirm first where the host supports it. ' +
      'Units: duration_s seconds, distance_m metres, kcal kilocalories, hr_avg/hr_max bpm (omit or 0 for unset), speed_kmh km/h (omit or 0 for unset). The new id is not returned; find it with list_training_sessions.',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    input: sessionInput,
    async run(s, ctx: ServerContext, server: McpServer) {
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
    },
  });
}

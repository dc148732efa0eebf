/** `create_training_target` (spec §5.3). */
import { parseCreatedId, targetToWire } from '../../units/target.ts';
import { excerpt, UpstreamError } from '../../upstream/errors.ts';
import { defineTool, type DiaryTool } from '../define.ts';
import type { Deps } from '../deps.ts';
import { textResult } from '../result.ts';
import { EXAMPLE, PHASE_GUIDE } from './guide.ts';
import { rejection } from './read.ts';
import { targetInput } from './schema.ts';

export function createTargetTool(deps: Deps): DiaryTool {
  return defineTool({
    name: 'create_training_target',
    title: 'Plan a workout',
    description:
      'Creates a training target (a planned workout) in the diary and returns its numeric id. Units: durations in seconds (*_s), distances in metres (*_m). ' +
      `The date-time is sent as local wall clock; the diary applies the account's time zone. ${PHASE_GUIDE} ${EXAMPLE}`,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    input: targetInput,
    async run(t) {
      const action = 'creating the training target';
      const r = await deps.upstream.call({ action, method: 'POST', path: '/api/trainingtarget', body: targetToWire(t) });
      if (r.status !== 201 && r.status !== 200) rejection(action, r, t);
      const id = parseCreatedId(r.text);
      if (id === undefined) throw new UpstreamError(`${action} failed: unexpected create response: ${excerpt(r.text) || '(empty body)'}`);
      return textResult(`Created training target ${id}: ${JSON.stringify(t.name)} at ${t.date}T${t.time}.`);
    },
  });
}

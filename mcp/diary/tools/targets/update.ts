/** `update_training_target` (spec §5.7): a full replace that carries over the live exercise-target id. */
import { exerciseTargetId, targetToWire } from '../../units/target.ts';
import { defineTool, type DiaryTool } from '../define.ts';
import type { Deps } from '../deps.ts';
import { jsonResult, textResult, ToolFailure } from '../result.ts';
import { PHASE_GUIDE } from './guide.ts';
import { notFound, readTarget, rejection } from './read.ts';
import { updateInput } from './schema.ts';

export function updateTargetTool(deps: Deps): DiaryTool {
  return defineTool({
    name: 'update_training_target',
    title: 'Replace a planned workout',
    description:
      'Replaces a training target completely: this is a full replace, not a patch. Every argument left out is cleared or reset to its default (time 18:00, sport_id 1, no description, no phases = VOLUME), so read the target with get_training_target first and pass everything you want to keep. ' +
      `The tool carries over the live exercise-target id itself. Returns the target as read back after the edit. Units and phases as in create_training_target. ${PHASE_GUIDE}`,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
    input: updateInput,
    async run({ id, target: t }) {
      const live = await readTarget(deps, id);
      if (!live.found) return notFound(id);
      const action = 'updating the training target';
      const body = targetToWire(t, exerciseTargetId(live.body));
      const r = await deps.upstream.call({ action, method: 'POST', path: `/api/trainingtarget/${id}`, body });
      if (r.status === 404) return notFound(id);
      if (r.status === 403) throw new ToolFailure(`Training target ${id} belongs to another account; nothing was changed.`);
      if (r.status < 200 || r.status >= 300) rejection(action, r, t);
      try {
        const after = await readTarget(deps, id);
        if (!after.found) return textResult(`Updated target ${id}, but reading it back failed: it is no longer there`);
        return jsonResult(after.body);
      } catch (err) {
        return textResult(`Updated target ${id}, but reading it back failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    },
  });
}

/** `get_training_target` (spec §5.6): the target as upstream stores it, passed through. */
import * as z from 'zod';
import { positiveInt } from '../args/fields.ts';
import { defineTool, READ_ONLY, type DiaryTool } from '../define.ts';
import type { Deps } from '../deps.ts';
import { jsonResult } from '../result.ts';
import { notFound, readTarget } from './read.ts';

/** The argument of the tools that name one target. */
export const targetIdInput = z.object({ target_id: positiveInt('Training target id') });

export function getTargetTool(deps: Deps): DiaryTool {
  return defineTool({
    name: 'get_training_target',
    title: 'Read a planned workout',
    description:
      "Returns a training target exactly as the diary stores it (server-normalised: ids, rolled-up totals, HH:MM:SS durations, zones). Read it before update_training_target, which is a full replace.",
    annotations: READ_ONLY,
    input: targetIdInput,
    async run({ target_id: id }) {
      const read = await readTarget(deps, id);
      return read.found ? jsonResult(read.body) : notFound(id);
    },
  });
}

/** `delete_training_target` (spec §5.5): read, confirm, delete; no state is kept between legs. */
import type { McpServer, ServerContext } from '@modelcontextprotocol/server';
import { confirmGate } from '../../confirm.ts';
import { httpError } from '../../upstream/errors.ts';
import { defineTool, type DiaryTool } from '../define.ts';
import type { Deps } from '../deps.ts';
import { textResult } from '../result.ts';
import { targetIdInput } from './get.ts';
import { notFound, readTarget } from './read.ts';

function deletePrompt(id: number, body: Record<string, unknown>): string {
  const name = typeof body.name === 'string' && body.name.trim() !== '' ? body.name : undefined;
  return name
    ? `Permanently remove training target ${JSON.stringify(name)} (${String(body.datetime)}, id ${id}) from the diary? This cannot be undone.`
    : `Permanently remove training target ${id} from the diary? This cannot be undone.`;
}

export function deleteTargetTool(deps: Deps): DiaryTool {
  return defineTool({
    name: 'delete_training_target',
    title: 'Delete a planned workout',
    description:
      'Permanently deletes a training target; this is irreversible. Asks the user to confirm first where the host supports it (the prompt names the target). Returns "Deleted target <id>." or "No target with id <id>.".',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
    input: targetIdInput,
    async run({ target_id: id }, ctx: ServerContext, server: McpServer) {
      // Always read first: upstream's DELETE does not reliably say whether the id existed.
      const read = await readTarget(deps, id);
      if (!read.found) return notFound(id);
      const gate = confirmGate(server, ctx, deletePrompt(id, read.body));
      if (gate) return gate;
      const action = 'deleting the training target';
      const r = await deps.upstream.call({ action, method: 'DELETE', path: `/training/target/${id}` });
      if (r.status === 200 || r.status === 204) return textResult(`Deleted target ${id}.`);
      if (r.status === 400 || r.status === 404) return notFound(id);
      throw httpError(action, r.status, r.text);
    },
  });
}

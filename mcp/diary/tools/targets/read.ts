/** Upstream plumbing the target tools share: reading a target, and wording a refused write. */
import { parseValidationBody, type TargetInput } from '../../units/target.ts';
import { httpError } from '../../upstream/errors.ts';
import type { Reply } from '../../upstream/client.ts';
import type { Deps } from '../deps.ts';
import { parseBody, textResult, ToolFailure } from '../result.ts';

/** "Not found" is a normal result, not an error (spec §2). */
export const notFound = (id: number) => textResult(`No target with id ${id}.`);

type Read = { found: true; body: Record<string, unknown> } | { found: false };

/** Reads a target: 404 is "not found" (a normal result), 403 a foreign target. */
export async function readTarget(deps: Deps, id: number): Promise<Read> {
  const action = 'reading the training target';
  const r = await deps.upstream.call({ action, method: 'GET', path: `/api/trainingtarget/${id}` });
  if (r.status === 404) return { found: false };
  if (r.status === 403) throw new ToolFailure(`Training target ${id} belongs to another account; nothing was read or changed.`);
  if (r.status !== 200) throw httpError(action, r.status, r.text);
  return { found: true, body: parseBody(action, r.text) as Record<string, unknown> };
}

/** Turns a refused create/update into the contract's messages. */
export function rejection(action: string, r: Reply, t: TargetInput): never {
  if (r.status !== 400) throw httpError(action, r.status, r.text);
  const fields = parseValidationBody(r.text);
  if (!fields) throw httpError(action, r.status, r.text);
  const at = `${t.date}T${t.time}`;
  if ((fields.time ?? []).some((c) => c.includes('twoTargetsForSameTime'))) {
    throw new ToolFailure(`The diary already has a training target at ${at}; pick another date or time.`);
  }
  if (fields['trainingSessionTarget.name']) {
    throw new ToolFailure(
      `The diary refused the name (trainingSessionTarget.name: ${fields['trainingSessionTarget.name'].join(', ')}). ` +
        `Its content filter rejects some harmless text: reword the name or prefix it, e.g. "Session - ${t.name}", and try again.`,
    );
  }
  const pairs = Object.keys(fields)
    .sort()
    .map((k) => `${k}: ${fields[k].join(', ')}`);
  throw new ToolFailure(`Upstream validation failed: ${pairs.join('; ')}`);
}

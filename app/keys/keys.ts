import type { Actor } from '../../domain/events.ts';
import { checkNewKey, type KeyRequest } from '../../domain/key/decide.ts';
import { hashToken, newKeyToken } from '../../domain/tokens.ts';
import type { KeyDoc } from '../../projections/documents.ts';
import { projectKey } from '../../projections/project.ts';
import { keyCommands } from '../aggregates.ts';
import type { CommandDeps } from '../deps.ts';
import { allocateId } from '../ids.ts';

/**
 * Issues a key; the plaintext token is returned here once and never stored. The request is
 * checked (scope, expiry) before an id is allocated, so a refused key costs no id.
 */
export async function issueKey(deps: CommandDeps, actor: Actor, request: KeyRequest): Promise<{ key: KeyDoc; token: string }> {
  const now = deps.now();
  const key = checkNewKey(request, now);
  const id = await allocateId(deps.events, 'key', actor, now);
  const token = newKeyToken();
  const { events } = await keyCommands(deps).handle(id, actor, { type: 'IssueKey', id, key, tokenHash: hashToken(token) });
  // The key as the read model shows it, from the events just appended (the key stream was new).
  const doc = events.reduce<KeyDoc | null>(projectKey, null);
  return { key: doc!, token };
}

/** Revokes a key; it is refused by the very next request once this returns. */
export async function revokeKey(deps: CommandDeps, actor: Actor, id: number): Promise<void> {
  await keyCommands(deps).handle(id, actor, { type: 'RevokeKey', id });
}

/** Records use of a key; callers coalesce so this is written at most once per window. */
export async function recordKeyUse(deps: CommandDeps, id: number, at: Date): Promise<void> {
  const actor: Actor = { kind: 'system', name: 'key-usage' };
  await keyCommands(deps).handle(id, actor, { type: 'RecordKeyUse', id, at });
}

import { StreamConflictError } from '../../domain/errors.ts';
import type { Actor } from '../../domain/events.ts';
import { checkNewKey, decideKey, type KeyRequest } from '../../domain/key/decide.ts';
import type { KeyState } from '../../domain/key/state.ts';
import type { EventToAppend } from '../../domain/ports.ts';
import { keyUsageStream } from '../../domain/streams.ts';
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
  const { events } = await keyCommands(deps).handle(id, actor, (state) => decideKey({ type: 'IssueKey', id, key, tokenHash: hashToken(token) }, state));
  // The key as the read model shows it, from the events just appended (the key stream was new).
  const doc = events.reduce<KeyDoc | null>(projectKey, null);
  return { key: doc!, token };
}

/** Revokes a key; it is refused by the very next request once this returns. */
export async function revokeKey(deps: CommandDeps, actor: Actor, id: number): Promise<void> {
  await keyCommands(deps).handle(id, actor, (state) => decideKey({ type: 'RevokeKey', id }, state));
}

/**
 * Records use of a key; callers coalesce so this is written at most once per window. The
 * event goes to the key's usage stream, never to the key's own, and nothing is read from the
 * log: the key's state comes from the read model the request was just authenticated against
 * (a use recorded in a race with a revoke is still a use that happened). Logs from before
 * usage streams hold months of uses in `key-<id>`; reading that stream every minute is what
 * this avoids. The expected revision of the usage stream comes from the store without reading
 * the stream; when uses recorded at the same moment by other instances win the race, this one
 * is appended after theirs (a few tries: the races are between instances, one use a minute each).
 */
export async function recordKeyUse(deps: CommandDeps, id: number, at: Date): Promise<void> {
  const actor: Actor = { kind: 'system', name: 'key-usage' };
  const doc = await deps.readModel.getKey(id);
  const state: KeyState = doc ? { status: doc.revoked ? 'revoked' : 'active', id } : { status: 'none' };
  const decided = decideKey({ type: 'RecordKeyUse', id, at }, state);
  if (decided.length === 0) return;
  const stream = keyUsageStream(id);
  const events: EventToAppend[] = decided.map((e) => ({ ...e, meta: { actor, at: deps.now().toISOString() } }));
  for (let attempt = 0; ; attempt++) {
    try {
      const { revision } = await deps.events.append(stream, events, await deps.events.streamRevision(stream));
      await deps.waitForProjection(stream, revision);
      return;
    } catch (err) {
      if (err instanceof StreamConflictError && attempt < 4) continue;
      throw err;
    }
  }
}

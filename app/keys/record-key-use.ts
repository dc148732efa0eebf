import type { Identity } from '../../domain/auth.ts';
import { decideKey } from '../../domain/key/decide.ts';
import type { KeyState } from '../../domain/key/state.ts';
import type { EventToAppend } from '../../domain/ports.ts';
import { keyUsageStream } from '../../domain/streams.ts';
import type { AppDeps } from '../deps.ts';
import { appendUse } from '../record-use.ts';

/**
 * Record that a key authorized a request (`last_used_at`). Callers coalesce, so this is
 * written at most once per key per window (host/usage-recorder.ts); the system records it.
 * The event goes to the key's usage stream, never to the key's own, and nothing is read from
 * the log: the key's state comes from the read model the request was just authenticated
 * against (a use recorded in a race with a revoke is still a use that happened). Logs from
 * before usage streams hold months of uses in `key-<id>`; reading that stream every minute is
 * what this avoids. The expected revision of the usage stream comes from the store without
 * reading the stream; when uses recorded at the same moment by other instances win the race,
 * this one is appended after theirs (a few tries: the races are between instances, one use a
 * minute each). The key decider still decides, on the state the read model gives.
 */
export async function recordKeyUse(deps: Pick<AppDeps, 'events' | 'queries' | 'waitForProjection' | 'now'>, identity: Identity, input: { readonly id: number; readonly at: Date }): Promise<void> {
  const { id, at } = input;
  const doc = await deps.queries.getKey(id);
  const state: KeyState = doc ? { status: doc.revoked ? 'revoked' : 'active', id } : { status: 'none' };
  const decided = decideKey({ type: 'RecordKeyUse', id, at }, state);
  if (decided.length === 0) return;
  const events: EventToAppend[] = decided.map((e) => ({ ...e, meta: { actor: identity.actor, at: deps.now().toISOString() } }));
  await appendUse(deps, keyUsageStream(id), events);
}

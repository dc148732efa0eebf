import type { Identity } from '../../domain/auth.ts';
import { decideConnection } from '../../domain/connection/decide.ts';
import type { EventToAppend } from '../../domain/ports.ts';
import { connectionUsageStream } from '../../domain/streams.ts';
import type { AppDeps } from '../deps.ts';
import { appendUse } from '../record-use.ts';

/**
 * Record that a connection's access token authorized a request (`last_used_at`); callers
 * coalesce (host/usage-recorder.ts), so at most once per connection per window. As for keys
 * (app/keys/record-key-use.ts): the event goes to the connection's usage stream, never to
 * its own, and nothing is read from the log. The connection's state comes from the read
 * model the request was just authenticated against; the connection decider decides on it
 * (no use for a revoked or unknown connection). So a busy connection's uses never take the
 * expected revision of `connection-<id>` from under the token endpoint's refreshes.
 */
export async function recordConnectionUse(
  deps: Pick<AppDeps, 'events' | 'queries' | 'waitForProjection' | 'now'>,
  identity: Identity,
  input: { readonly id: string; readonly at: Date },
): Promise<void> {
  const state = (await deps.queries.getConnection(input.id)) ?? null;
  const decided = decideConnection({ type: 'RecordConnectionUse', id: input.id, at: input.at }, state);
  if (decided.length === 0) return;
  const events: EventToAppend[] = decided.map((e) => ({ ...e, meta: { actor: identity.actor, at: deps.now().toISOString() } }));
  await appendUse(deps, connectionUsageStream(input.id), events);
}

import type { Identity } from '../../domain/auth.ts';
import { keyCommands } from '../aggregates.ts';
import type { AppDeps } from '../deps.ts';

/**
 * Record that a key authorized a request (`last_used_at`). Callers coalesce, so this is
 * written at most once per key per window (host/usage-recorder.ts); the system records it.
 */
export async function recordKeyUse(deps: Pick<AppDeps, 'events' | 'waitForProjection' | 'now'>, identity: Identity, input: { readonly id: number; readonly at: Date }): Promise<void> {
  await keyCommands(deps).handle(input.id, identity.actor, { type: 'RecordKeyUse', id: input.id, at: input.at });
}

import type { Identity } from '../../domain/auth.ts';
import { connectionCommands } from '../aggregates.ts';
import type { AppDeps } from '../deps.ts';

/** Record that a connection's access token authorized a request; callers coalesce (host/usage-recorder.ts). */
export async function recordConnectionUse(deps: Pick<AppDeps, 'events' | 'waitForProjection' | 'now'>, identity: Identity, input: { readonly id: string; readonly at: Date }): Promise<void> {
  await connectionCommands(deps).handle(input.id, identity.actor, { type: 'RecordConnectionUse', id: input.id, at: input.at });
}

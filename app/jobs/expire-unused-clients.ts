import { ConflictError } from '../../domain/errors.ts';
import type { Identity } from '../../domain/auth.ts';
import { oauthClientCommands } from '../aggregates.ts';
import type { CycleDeps } from '../command.ts';
import type { AppDeps } from '../deps.ts';

/** How many candidates the expiry job reads from the read model at a time. */
const EXPIRY_BATCH = 200;

/**
 * The expiry job: every OAuth client registration never used for a consent whose deadline
 * (`unusedExpiresAt`, 24 h after registering) has come by `now` is ended with
 * `ClientRegistrationExpired` (the projection then deletes its document). The read model
 * only proposes candidates; each one is decided on its own stream, so a client used in the
 * meantime is kept. Returns the expired client ids.
 */
export async function expireUnusedClients(deps: CycleDeps & Pick<AppDeps, 'queries'>, identity: Identity, input: { readonly now: Date }): Promise<string[]> {
  const { now } = input;
  const actor = identity.actor;
  const clients = oauthClientCommands(deps);
  const expired: string[] = [];
  for (;;) {
    const batch = await deps.queries.listExpiredUnusedOAuthClients(now.toISOString(), EXPIRY_BATCH);
    let progressed = false;
    for (const candidate of batch) {
      try {
        const { events } = await clients.handle(candidate.clientId, actor, { type: 'ExpireClient', now });
        if (events.length > 0) {
          expired.push(candidate.clientId);
          progressed = true;
        }
      } catch (err) {
        // A consent won the race twice: the client is in use now, leave it.
        if (!(err instanceof ConflictError)) throw err;
      }
    }
    // A full batch that expired nothing would come back the same: stop rather than spin.
    if (batch.length < EXPIRY_BATCH || !progressed) return expired;
  }
}

import type { Identity } from '../../domain/auth.ts';
import { NotFoundError } from '../../domain/errors.ts';
import type { AppDeps } from '../deps.ts';
import { purgeSite } from '../site-lifecycle/purge.ts';

/**
 * The quarantine job (spec §4): every site longer than `ttlMs` in the trash is purged,
 * through the same use case as an admin's purge, by the identity the job runs as (the
 * system). Returns the purged paths.
 */
export async function purgeExpired(deps: AppDeps, identity: Identity, input: { readonly ttlMs: number }): Promise<string[]> {
  const cutoff = deps.now().getTime() - input.ttlMs;
  const purged: string[] = [];
  for (const site of await deps.queries.listQuarantined()) {
    if (!site.deletedAt || Date.parse(site.deletedAt) > cutoff) continue;
    try {
      await purgeSite(deps, identity, { site: site.path });
      purged.push(site.path);
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err; // restored or purged meanwhile
    }
  }
  return purged;
}

import { NotFoundError } from '../../domain/errors.ts';
import type { CommandDeps } from '../deps.ts';
import { purgeSite } from '../site-lifecycle/lifecycle.ts';

/** Quarantined sites older than the TTL are purged by this job, acting as the system. */
export async function purgeExpired(deps: CommandDeps, ttlMs: number): Promise<string[]> {
  const cutoff = deps.now().getTime() - ttlMs;
  const purged: string[] = [];
  for (const site of await deps.queries.listQuarantined()) {
    if (!site.deletedAt || Date.parse(site.deletedAt) > cutoff) continue;
    try {
      await purgeSite(deps, { actor: { kind: 'system', name: 'quarantine-ttl' }, system: true }, { group: site.group, slug: site.slug });
      purged.push(site.path);
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err; // restored or purged meanwhile
    }
  }
  return purged;
}

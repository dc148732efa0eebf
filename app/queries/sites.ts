import { isAdmin, type Identity } from '../../domain/auth.ts';
import { NotFoundError } from '../../domain/errors.ts';
import type { RevisionInfo } from '../../domain/events.ts';
import { fullPath, type SiteAddress } from '../../domain/paths.ts';
import type { SiteDoc } from '../../projections/documents.ts';
import type { CommandDeps } from '../deps.ts';
import { readable } from '../../domain/site/lifecycle.ts';

/**
 * A live site as a reader may see it: hidden sites are admin-only and answer 404
 * to everyone else, exactly like a missing one.
 */
export async function visibleSite(deps: Pick<CommandDeps, 'queries'>, identity: Identity, address: SiteAddress): Promise<SiteDoc> {
  const site = await deps.queries.getSite(fullPath(address));
  if (!site || !readable(site.status) || (site.meta.hidden && !isAdmin(identity))) {
    throw new NotFoundError(`no site ${fullPath(address)}`);
  }
  return site;
}

/** Live first, then archived, most recently archived first. */
export function revisionsOf(site: SiteDoc): { info: RevisionInfo; current: boolean }[] {
  return [{ info: site.live, current: true }, ...site.archived.filter((r) => r.id !== site.live.id).map((info) => ({ info, current: false }))];
}

/** Resolves `current` or an id to a retained revision of the site. */
export function findRevision(site: SiteDoc, rev: string): RevisionInfo {
  if (rev === 'current' || rev === site.live.id) return site.live;
  const found = site.archived.find((r) => r.id === rev);
  if (!found) throw new NotFoundError(`site ${site.path} has no revision ${rev}`);
  return found;
}

import { NotFoundError } from '../../domain/errors.ts';
import type { RevisionInfo } from '../../domain/events.ts';
import type { SiteDoc } from '../../projections/documents.ts';

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

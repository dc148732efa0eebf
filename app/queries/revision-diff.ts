import type { Identity } from '../../domain/auth.ts';
import { readableSite } from '../authorize.ts';
import type { RevisionDiff } from '../contract/audit.ts';
import type { AppDeps } from '../deps.ts';
import { diffRevisions } from './storage.ts';

export type RevisionDiffInput = { readonly site: string; readonly from: string; readonly to: string };

/**
 * `GET /api/sites/{path}/revisions/{a}/diff/{b}` (spec §12): two retained revisions of a
 * site compared by content hash; `current` names the live one. Anyone who may read the site.
 */
export async function revisionDiff(deps: AppDeps, identity: Identity, input: RevisionDiffInput): Promise<RevisionDiff> {
  const site = await readableSite(deps, identity, input.site);
  const d = await diffRevisions(site, input.from, input.to, deps.manifests);
  return {
    from: d.from,
    to: d.to,
    added: d.added,
    removed: d.removed,
    changed: d.changed,
    unchanged: d.unchanged,
    bytes_added: d.bytesAdded,
    bytes_removed: d.bytesRemoved,
  };
}

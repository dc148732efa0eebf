import type { Identity } from '../../domain/auth.ts';
import { changeCounts, diffManifests } from '../../domain/manifest-diff.ts';
import { rollbackTarget, type SiteCommand } from '../../domain/site/decide.ts';
import { authorizeSite } from '../authorize.ts';
import { readLater, type Later } from '../contract/later.ts';
import type { RollbackInput } from '../contract/site-ref.ts';
import type { Site } from '../contract/site.ts';
import type { AppDeps } from '../deps.ts';
import { runSiteCommand } from './run.ts';

/** `revision` is read once `rollback` on the site is checked (an HTTP body: 403 before 400). */
export type RollbackSiteInput = { readonly site: string; readonly revision?: Later<RollbackInput['revision']> };

/**
 * Rollback (spec §4): an archived revision becomes live and the live one moves to the
 * front of the archive; `current` does nothing; none named: the most recently archived.
 * Needs `rollback` and versioning on. Answers the Site and the revision now live.
 * The changelog's counts (what the chosen revision changes against the live one) are measured
 * from the two manifests before deciding.
 */
export async function rollbackSite(deps: AppDeps, identity: Identity, input: RollbackSiteInput): Promise<{ readonly site: Site; readonly revision: string }> {
  const address = authorizeSite(identity, 'rollback', input.site);
  const revision = (await readLater(input.revision)) ?? undefined;
  const { site } = await runSiteCommand(deps, identity.actor, address, async (state): Promise<SiteCommand> => {
    const chosen = state.live && rollbackTarget(state, revision);
    const [before, after] = chosen ? await Promise.all([deps.manifests.get(state.live!.manifest), deps.manifests.get(chosen.manifest)]) : [];
    const changes = after ? changeCounts(diffManifests(before, after)) : undefined;
    return { type: 'RollbackSite', address, revision, versioning: deps.versioning, changes };
  });
  // The answer is the Site; the live revision it now has goes to the write log.
  return { site: deps.shapes.site(site!, identity), revision: site!.live.id };
}

import { authorize, type Identity } from '../../domain/auth.ts';
import type { Actor, SiteEvent } from '../../domain/events.ts';
import { fullPath, type SiteAddress } from '../../domain/paths.ts';
import { rollbackTarget, type SiteCommand } from '../../domain/site/decide.ts';
import type { MetaPatch } from '../../domain/site/meta.ts';
import type { SiteDoc } from '../../projections/documents.ts';
import { siteCommands } from '../aggregates.ts';
import type { CommandDeps } from '../deps.ts';
import { collectDropped } from '../jobs/gc.ts';
import { changeCounts, diffManifests } from '../../domain/manifest-diff.ts';
import { loadManifest } from '../queries/changes.ts';

/** Runs one lifecycle command on a site stream and returns the site as the read model now shows it. */
async function runSiteCommand(deps: CommandDeps, actor: Actor, address: SiteAddress, command: SiteCommand): Promise<{ site?: SiteDoc; events: readonly SiteEvent[] }> {
  const { events } = await siteCommands(deps).handle(address, actor, command);
  return { site: await deps.queries.getSite(fullPath(address)), events };
}

export async function unpublishSite(deps: CommandDeps, identity: Identity, address: SiteAddress): Promise<void> {
  authorize(identity, 'unpublish', address);
  await runSiteCommand(deps, identity.actor, address, { type: 'UnpublishSite', address });
}

/** Restore needs `publish`: bringing content back online is publishing it (spec §4). */
export async function restoreSite(deps: CommandDeps, identity: Identity, address: SiteAddress): Promise<SiteDoc> {
  authorize(identity, 'publish', address);
  const { site } = await runSiteCommand(deps, identity.actor, address, { type: 'RestoreSite', address });
  return site!;
}

export async function purgeSite(deps: CommandDeps, identity: Identity | { actor: Actor; system: true }, address: SiteAddress): Promise<void> {
  if (!('system' in identity)) authorize(identity, 'purge', address);
  const { events } = await runSiteCommand(deps, identity.actor, address, { type: 'PurgeSite', address });
  const purged = events.find((e) => e.type === 'SitePurged');
  if (purged?.type === 'SitePurged') {
    await collectDropped(deps, purged.data.revisions.map((r) => ({ manifest: r.manifest, ...(r.favicon ? { favicon: r.favicon } : {}) })));
  }
}

export async function patchSite(deps: CommandDeps, identity: Identity, address: SiteAddress, patch: MetaPatch): Promise<SiteDoc> {
  authorize(identity, 'patch', address);
  const { site } = await runSiteCommand(deps, identity.actor, address, { type: 'PatchSite', address, patch });
  return site!;
}

/** `revision`: an archived revision id, `current` (nothing to do), or undefined for the most recently archived one. */
export async function rollbackSite(deps: CommandDeps, identity: Identity, address: SiteAddress, revision: string | undefined): Promise<SiteDoc> {
  authorize(identity, 'rollback', address);
  await siteCommands(deps).handle(address, identity.actor, async (state): Promise<SiteCommand> => {
    // The changelog's counts: what the chosen revision changes against the live one it replaces.
    const chosen = state.live && rollbackTarget(state, revision);
    const [before, after] = chosen ? await Promise.all([loadManifest(deps.blobs, state.live!.manifest), loadManifest(deps.blobs, chosen.manifest)]) : [];
    const changes = after ? changeCounts(diffManifests(before, after)) : undefined;
    return { type: 'RollbackSite', address, revision, versioning: deps.versioning, changes };
  });
  return (await deps.queries.getSite(fullPath(address)))!;
}

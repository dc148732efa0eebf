import type { Actor, SiteEvent } from '../../domain/events.ts';
import { fullPath, type SiteAddress } from '../../domain/paths.ts';
import type { SiteCommand } from '../../domain/site/decide.ts';
import type { SiteState } from '../../domain/site/state.ts';
import type { SiteDoc } from '../../projections/documents.ts';
import { siteCommands } from '../aggregates.ts';
import type { Prepare } from '../command.ts';
import type { AppDeps } from '../deps.ts';

/**
 * Runs one lifecycle command on a site's stream (the command cycle: read, prepare, decide,
 * append, wait for the read model) and returns the site as the read model now shows it.
 */
export async function runSiteCommand(
  deps: AppDeps,
  actor: Actor,
  address: SiteAddress,
  command: Prepare<SiteCommand, SiteState>,
): Promise<{ site: SiteDoc | undefined; events: readonly SiteEvent[] }> {
  const { events } = await siteCommands(deps).handle(address, actor, command);
  return { site: await deps.queries.getSite(fullPath(address)), events };
}

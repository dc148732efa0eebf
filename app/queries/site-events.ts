import type { Identity } from '../../domain/auth.ts';
import { NotFoundError } from '../../domain/errors.ts';
import { fullPath, parseSitePath } from '../../domain/paths.ts';
import { siteStream } from '../../domain/streams.ts';
import { requireAdmin } from '../authorize.ts';
import type { EventsResponse } from '../contract/events.ts';
import type { SiteRef } from '../contract/site-ref.ts';
import type { AppDeps } from '../deps.ts';

/**
 * `GET /api/sites/{path}/events` (spec §5, admins): the whole history of an address, across
 * purges and re-creations, oldest first, each event with its actor: the audit trail.
 */
export async function siteEvents(deps: AppDeps, identity: Identity, input: SiteRef): Promise<EventsResponse> {
  requireAdmin(identity);
  const address = parseSitePath(input.site);
  const { events } = await deps.events.readStream(siteStream(address));
  if (events.length === 0) throw new NotFoundError(`no history for ${fullPath(address)}`);
  return { events: events.map((e) => ({ type: e.type, at: e.meta.at, actor: e.meta.actor, data: e.data })) };
}

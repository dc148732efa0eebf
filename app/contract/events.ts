import { z } from 'zod';
import { Timestamp } from './common.ts';

/** Who caused an event (its metadata's actor). */
export const Actor = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('key'), id: z.int(), name: z.string() }),
  z.object({ kind: z.literal('user'), name: z.string() }),
  z.object({ kind: z.literal('connection'), id: z.string(), name: z.string(), user: z.string().optional() }),
  z.object({ kind: z.literal('system'), name: z.string() }),
]);

/** One entry of a site's audit history. */
export const SiteEventEntry = z
  .object({
    type: z.string().meta({ description: 'the event name, past tense: SitePublished, SiteArchived, SiteRolledBack, SiteQuarantined, SiteRestored, SitePurged, SitePatched, RevisionDropped…' }),
    at: Timestamp,
    actor: Actor,
    data: z.record(z.string(), z.unknown()).meta({ description: 'the event’s data, as stored' }),
  })
  .meta({ description: 'An event of the site’s stream.' });

/** `GET /api/sites/{path}/events`, oldest first. */
export const EventsResponse = z.object({ events: z.array(SiteEventEntry) });
export type EventsResponse = z.infer<typeof EventsResponse>;

import { z } from 'zod';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../activity/activity.ts';
import { Timestamp } from './common.ts';
import { Actor } from './events.ts';

const RFC3339 = /^\d{4}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2}))?$/;
const time = (name: string, description: string) =>
  z
    .string()
    .regex(RFC3339, { error: `${name} must be an RFC 3339 date-time (2026-11-24T10:15:00Z) or date` })
    .refine((t) => !Number.isNaN(Date.parse(t.length === 10 ? `${t}T00:00:00Z` : t)), { error: `${name} is not a real date` })
    .optional()
    .meta({ description });

/** `GET /api/events` query (spec §16), one string per parameter. */
export const ActivityQuery = z.object({
  actor: z.string().max(200).optional().meta({ description: 'who: a user name (also what their MCP connections did), key:<id> or connection:<id>' }),
  type: z
    .string()
    .max(2000)
    .transform((t) => t.split(',').map((s) => s.trim()).filter(Boolean))
    .pipe(z.array(z.string()))
    .optional()
    .meta({ description: 'comma-separated event types (SitePublished, KeyIssued, …) or webhook types (site.published, key.issued, …)' }),
  site: z.string().max(300).optional().meta({ description: 'a site path, or a group and its whole subtree (grant target semantics); "" is everything' }),
  since: time('since', 'events at or after this time (a date alone: from its start, UTC)'),
  until: time('until', 'events at or before this time (a date alone: to its end, UTC)'),
  limit: z
    .string()
    .regex(/^\d+$/, { error: 'limit must be a whole number' })
    .transform(Number)
    .pipe(z.int().min(1, { error: `limit must be between 1 and ${MAX_LIMIT}` }).max(MAX_LIMIT, { error: `limit must be between 1 and ${MAX_LIMIT}` }))
    .optional()
    .meta({ description: `page size, default ${DEFAULT_LIMIT}; the NDJSON export has no page` }),
  cursor: z.string().max(64).optional().meta({ description: 'the `next` of the previous page' }),
});

export const Activity = z
  .object({
    id: z.string().meta({ description: "the event's position in the log" }),
    type: z.string().meta({ description: 'the event name: SitePublished, SiteRolledBack, KeyIssued, WebhookCreated, …' }),
    at: Timestamp,
    actor: Actor,
    site: z.string().optional().meta({ description: "the site's path, for events of a site" }),
    data: z.record(z.string(), z.unknown()).meta({ description: "the event's data, without secrets or token hashes" }),
  })
  .meta({ description: 'One event of the log, as the activity view shows it.' });
export type Activity = z.infer<typeof Activity>;

export const ActivityResponse = z.object({
  events: z.array(Activity).meta({ description: 'newest first' }),
  next: z.string().optional().meta({ description: 'present when older events match: pass it as `cursor`' }),
});
export type ActivityResponse = z.infer<typeof ActivityResponse>;

import type { Identity } from '../../domain/auth.ts';
import { requireAdmin } from '../authorize.ts';
import { ValidationError } from '../../domain/errors.ts';
import { assertCanonicalTarget } from '../../domain/grants.ts';
import { isWebhookType } from '../../domain/webhook/names.ts';
import { eventTypesOf } from '../../domain/webhook/types.ts';
import { parseActorFilter, type Activity, type ActivityFilter, type ActivityStore } from '../../projections/activity.ts';
import { isPosition, positionKey } from '../../projections/positions.ts';

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 500;
/** Entries per read of an export: memory stays at one page whatever the export's length. */
const EXPORT_PAGE = 500;

/** `GET /api/events` as parsed at the edge (spec §16); times already RFC 3339. */
export type ActivityInput = {
  readonly actor?: string;
  /** Log event types (`SitePublished`) or webhook types (`site.published`), any of them. */
  readonly types?: readonly string[];
  readonly site?: string;
  readonly since?: string;
  readonly until?: string;
  readonly limit?: number;
  readonly cursor?: string;
};

export type ActivityDeps = { readonly activity: ActivityStore };

const EVENT_TYPE = /^[A-Z][A-Za-z]{1,63}$/;

/** A time of the query as the store compares it (ISO-8601 UTC); a date alone is its first or last millisecond. */
function instant(text: string, name: string, end: boolean): string {
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(text);
  const ms = Date.parse(dateOnly ? `${text}T00:00:00Z` : text);
  if (Number.isNaN(ms)) throw new ValidationError(`${name} must be an RFC 3339 date-time`);
  return new Date(dateOnly && end ? ms + 86_400_000 - 1 : ms).toISOString();
}

/** The filters of a query, checked: unknown spellings are refused rather than silently matching nothing. */
export function activityFilter(input: ActivityInput): ActivityFilter {
  const types = new Set<string>();
  for (const t of input.types ?? []) {
    if (isWebhookType(t)) for (const e of eventTypesOf(t)) types.add(e);
    else if (EVENT_TYPE.test(t)) types.add(t);
    else throw new ValidationError(`type: ${JSON.stringify(t)} is neither an event type (SitePublished) nor a webhook type (site.published)`);
  }
  if (input.types && input.types.length > 0 && types.size === 0) types.add('-'); // only types with no event yet: nothing matches
  if (input.site !== undefined && input.site !== '') {
    try {
      assertCanonicalTarget(input.site);
    } catch (err) {
      throw new ValidationError(`site: ${(err as Error).message}`);
    }
  }
  const since = input.since !== undefined ? instant(input.since, 'since', false) : undefined;
  const until = input.until !== undefined ? instant(input.until, 'until', true) : undefined;
  return {
    ...(types.size > 0 ? { types: [...types] } : {}),
    ...(input.actor ? { actor: parseActorFilter(input.actor) } : {}),
    ...(input.site ? { site: input.site } : {}),
    ...(since !== undefined ? { since } : {}),
    ...(until !== undefined ? { until } : {}),
  };
}

function cursorKey(cursor: string | undefined): string | undefined {
  if (cursor === undefined) return undefined;
  if (!isPosition(cursor)) throw new ValidationError('cursor is not one this service handed out (use the "next" of a previous page)');
  return positionKey(cursor);
}

/**
 * One page of the service's activity, newest first (admins). `next` is the position of
 * the page's last entry: the next page holds what lies before it in the log, so events
 * appended meanwhile (which come after) neither repeat nor push entries off a page.
 */
export async function listActivity(deps: ActivityDeps, identity: Identity, input: ActivityInput): Promise<{ events: Activity[]; next?: string }> {
  requireAdmin(identity);
  const filter = activityFilter(input);
  const limit = Math.min(Math.max(input.limit ?? DEFAULT_LIMIT, 1), MAX_LIMIT);
  const after = cursorKey(input.cursor);
  const found = await deps.activity.query(filter, { order: 'desc', limit: limit + 1, ...(after !== undefined ? { after } : {}) });
  const events = found.slice(0, limit);
  return found.length > limit ? { events, next: events[events.length - 1]!.id } : { events };
}

/**
 * Every matching entry, oldest first, without a page limit (the NDJSON export): read a
 * page at a time, so memory stays bounded however long the log. Authorized before the
 * first read; the caller streams each entry out as it comes.
 */
export function exportActivity(deps: ActivityDeps, identity: Identity, input: ActivityInput): AsyncGenerator<Activity> {
  requireAdmin(identity);
  // The export is the whole history that matches: `limit` and `cursor` belong to pages.
  const filter = activityFilter(input);
  return (async function* () {
    let after: string | undefined;
    for (;;) {
      const page = await deps.activity.query(filter, { order: 'asc', limit: EXPORT_PAGE, ...(after !== undefined ? { after } : {}) });
      yield* page;
      if (page.length < EXPORT_PAGE) return;
      after = positionKey(page[page.length - 1]!.id);
    }
  })();
}

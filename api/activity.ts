import Router from '@koa/router';
import { Readable } from 'node:stream';
import { exportActivity, listActivity } from '../app/activity/activity.ts';
import { requireUser } from './auth.ts';
import type { ApiContext } from './context.ts';
import { ActivityQuery, type ActivityResponse } from '../app/contract/activity.ts';
import { parseQuery } from '../app/contract/parse.ts';

/**
 * `GET /api/events` (spec §16): the service's activity, newest first in pages, or the whole
 * matching history oldest first as JSON lines (`Accept: application/x-ndjson`), streamed
 * a page at a time with back-pressure: a slow reader holds one page, never the log.
 */
export function activityRouter(api: ApiContext): Router {
  const r = new Router();
  r.get('/api/events', async (ctx) => {
    const identity = await requireUser(api, ctx);
    const q = parseQuery(ActivityQuery, ctx.query);
    const input = { actor: q.actor, types: q.type, site: q.site, since: q.since, until: q.until, limit: q.limit, cursor: q.cursor };
    if (ctx.accepts('application/json', 'application/x-ndjson') === 'application/x-ndjson') {
      const entries = exportActivity(api.deps, identity, input);
      ctx.type = 'application/x-ndjson';
      ctx.set('Cache-Control', 'no-store');
      ctx.body = Readable.from(
        (async function* () {
          for await (const entry of entries) yield `${JSON.stringify(entry)}\n`;
        })(),
      );
      return;
    }
    ctx.body = (await listActivity(api.deps, identity, input)) satisfies ActivityResponse;
  });
  return r;
}

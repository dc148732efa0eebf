import Router from '@koa/router';
import { listDeliveries, redeliver } from '../app/webhooks/deliveries.ts';
import type { WebhookDeps } from '../app/webhooks/deps.ts';
import { createWebhook, deleteWebhook, listWebhooks } from '../app/webhooks/manage.ts';
import { requireUser } from './auth.ts';
import { readJson } from './bodies.ts';
import type { ApiContext } from './context.ts';
import { parseInput, parseQuery } from '../app/contract/parse.ts';
import { CreateWebhookBody, DeliveriesQuery, type CreatedWebhook, type DeliveriesResponse, type Delivery, type WebhooksResponse } from '../app/contract/webhooks.ts';

/**
 * Webhooks (spec §16). Each route authenticates, parses and calls its use case in
 * app/webhooks/, which checks that the caller is an admin. Like every apex route they sit
 * behind the cross-origin guard: a page on a site cannot use a signed-in admin's cookies.
 */
export function webhooksRouter(api: ApiContext): Router {
  const r = new Router();
  const deps = (): WebhookDeps => api.deps;
  r.get('/api/webhooks', async (ctx) => {
    const identity = await requireUser(api, ctx);
    ctx.body = (await listWebhooks(deps(), identity)) satisfies WebhooksResponse;
  });
  r.post('/api/webhooks', async (ctx) => {
    const identity = await requireUser(api, ctx);
    const created = await createWebhook(deps(), identity, async () => parseInput(CreateWebhookBody, await readJson(ctx)));
    ctx.status = 201;
    ctx.body = created satisfies CreatedWebhook;
  });
  r.delete('/api/webhooks/:id', async (ctx) => {
    const identity = await requireUser(api, ctx);
    await deleteWebhook(deps(), identity, { id: ctx.params.id! });
    ctx.status = 204;
  });
  r.get('/api/webhooks/:id/deliveries', async (ctx) => {
    const identity = await requireUser(api, ctx);
    const { limit } = parseQuery(DeliveriesQuery, ctx.query);
    ctx.body = (await listDeliveries(deps(), identity, { id: ctx.params.id!, ...(limit !== undefined ? { limit } : {}) })) satisfies DeliveriesResponse;
  });
  r.post('/api/webhooks/:id/deliveries/:delivery/redeliver', async (ctx) => {
    const identity = await requireUser(api, ctx);
    const delivery = await redeliver(deps(), identity, { id: ctx.params.id!, delivery: ctx.params.delivery! });
    ctx.status = 202;
    ctx.body = delivery satisfies Delivery;
  });
  return r;
}

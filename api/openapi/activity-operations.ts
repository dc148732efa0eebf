import { ActivityQuery, ActivityResponse } from '../../app/contract/activity.ts';
import { CreatedWebhook, CreateWebhookBody, DeliveriesQuery, DeliveriesResponse, Delivery, DeliveryIdParam, WebhookIdParam, WebhooksResponse } from '../../app/contract/webhooks.ts';
import { empty, json, jsonBody, type Operation } from './operation.ts';

/** Admin only (spec §16): the activity log and webhooks. */
export const activity: Operation[] = [
  {
    id: 'listActivity',
    method: 'get',
    path: '/api/events',
    tag: 'activity',
    auth: 'admin',
    summary: 'What happened, anywhere, by whom',
    description:
      'Every event of every stream, newest first, filtered. Pages follow `next` → `cursor`; events appended meanwhile never repeat or shift a page. ' +
      'With `Accept: application/x-ndjson` the same events stream as JSON lines, oldest first, without a page limit (an export for a SIEM).',
    query: ActivityQuery,
    ok: { status: 200, reply: json(ActivityResponse, 'a page of events (or, for application/x-ndjson, one Activity per line)') },
    errors: [400, 401, 403],
  },
  {
    id: 'listWebhooks',
    method: 'get',
    path: '/api/webhooks',
    tag: 'webhooks',
    auth: 'admin',
    summary: 'List webhooks (never their secrets)',
    ok: { status: 200, reply: json(WebhooksResponse, 'the subscriptions, oldest first') },
    errors: [401, 403],
  },
  {
    id: 'createWebhook',
    method: 'post',
    path: '/api/webhooks',
    tag: 'webhooks',
    auth: 'admin',
    summary: 'Subscribe a URL to events',
    description:
      'The URL must be https (http too with SITES_WEBHOOK_ALLOW_PRIVATE=true) and its host must resolve to public addresses only (else 400); each delivery checks it again. ' +
      'Deliveries are POSTs of {type, timestamp, data} signed per Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature) with the secret in this response, which is shown once.',
    body: jsonBody(CreateWebhookBody, 'the subscription'),
    ok: { status: 201, reply: json(CreatedWebhook, 'the webhook, with its secret') },
    errors: [400, 401, 403, 409, 413, 415],
  },
  {
    id: 'deleteWebhook',
    method: 'delete',
    path: '/api/webhooks/{id}',
    tag: 'webhooks',
    auth: 'admin',
    summary: 'Delete a webhook',
    description: 'Nothing more is sent to it once this returns.',
    params: { id: WebhookIdParam },
    ok: { status: 204, reply: empty('deleted') },
    errors: [401, 403, 404, 409],
  },
  {
    id: 'listDeliveries',
    method: 'get',
    path: '/api/webhooks/{id}/deliveries',
    tag: 'webhooks',
    auth: 'admin',
    summary: "A webhook's deliveries",
    params: { id: WebhookIdParam },
    query: DeliveriesQuery,
    ok: { status: 200, reply: json(DeliveriesResponse, 'newest first') },
    errors: [400, 401, 403, 404],
  },
  {
    id: 'redeliverDelivery',
    method: 'post',
    path: '/api/webhooks/{id}/deliveries/{delivery}/redeliver',
    tag: 'webhooks',
    auth: 'admin',
    summary: 'Send a delivery again',
    description: 'It becomes pending and due now, with a new 24-hour retry window, and keeps its webhook-id; it goes out before anything newer still waiting for this webhook.',
    params: { id: WebhookIdParam, delivery: DeliveryIdParam },
    ok: { status: 202, reply: json(Delivery, 'the delivery, pending') },
    errors: [401, 403, 404],
  },
];

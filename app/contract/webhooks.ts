import { z } from 'zod';
import { MAX_DELIVERIES } from '../webhooks/deliveries.ts';
import { MAX_DESCRIPTION, MAX_URL } from '../../domain/webhook/decide.ts';
import { WEBHOOK_TYPES } from '../../domain/webhook/names.ts';
import { Timestamp } from './common.ts';
import { Actor } from './events.ts';

const WebhookType = z.enum(WEBHOOK_TYPES);

/** `POST /api/webhooks` body (spec §16); the domain checks the target and the URL's destination. */
export const CreateWebhookBody = z.object({
  url: z.string().max(MAX_URL).meta({ description: 'https URL (http too with SITES_WEBHOOK_ALLOW_PRIVATE=true); its host must resolve to public addresses' }),
  events: z.array(z.string().max(64)).min(1).max(WEBHOOK_TYPES.length * 2).meta({ description: `what to send: ${WEBHOOK_TYPES.join(', ')}` }),
  target: z.string().max(300).optional().meta({ description: 'narrows site and preview types: "" (all), a group and its subtree, or one site path' }),
  description: z.string().max(MAX_DESCRIPTION).optional(),
});

export const Webhook = z
  .object({
    id: z.string().regex(/^wh_[0-9a-f]{20}$/),
    url: z.string(),
    events: z.array(WebhookType),
    target: z.string(),
    description: z.string().optional(),
    created_at: Timestamp,
    created_by: Actor,
  })
  .meta({ description: 'A webhook subscription (its secret is shown once, when it is created).' });
export type Webhook = z.infer<typeof Webhook>;

export const CreatedWebhook = Webhook.extend({
  secret: z.string().regex(/^whsec_[A-Za-z0-9+/]+={0,2}$/).meta({ description: 'the signing secret (Standard Webhooks); shown only in this response' }),
});
export type CreatedWebhook = z.infer<typeof CreatedWebhook>;

export const WebhooksResponse = z.object({ webhooks: z.array(Webhook) });
export type WebhooksResponse = z.infer<typeof WebhooksResponse>;

export const Delivery = z
  .object({
    id: z.string().meta({ description: 'the webhook-id header: the same on every attempt' }),
    type: WebhookType,
    status: z.enum(['pending', 'succeeded', 'failed']),
    attempts: z.int().min(0),
    last_status: z.int().optional().meta({ description: "the receiver's last HTTP status" }),
    last_error: z.string().optional().meta({ description: 'why the last attempt failed (the answer, a refused address, a timeout…)' }),
    created_at: Timestamp,
    next_attempt_at: Timestamp.optional().meta({ description: 'while pending: when it is sent next' }),
    last_attempt_at: Timestamp.optional(),
    event: z.string().meta({ description: "the event's position in the log (its Activity id)" }),
    site: z.string().optional(),
  })
  .meta({ description: 'One event sent (or to be sent) to one webhook.' });
export type Delivery = z.infer<typeof Delivery>;

export const DeliveriesResponse = z.object({ deliveries: z.array(Delivery).meta({ description: 'newest first' }) });
export type DeliveriesResponse = z.infer<typeof DeliveriesResponse>;

export const DeliveriesQuery = z.object({
  limit: z
    .string()
    .regex(/^\d+$/, { error: 'limit must be a whole number' })
    .transform(Number)
    .pipe(z.int().min(1).max(MAX_DELIVERIES, { error: `limit must be between 1 and ${MAX_DELIVERIES}` }))
    .optional()
    .meta({ description: 'how many, default 100' }),
});

export const WebhookIdParam = z.string().meta({ description: 'the webhook id (wh_…)' });
export const DeliveryIdParam = z.string().meta({ description: 'the delivery id (msg_…)' });

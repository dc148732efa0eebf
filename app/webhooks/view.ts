import type { Actor } from '../../domain/events.ts';
import type { WebhookType } from '../../domain/webhook/names.ts';
import type { DeliveryRecord, WebhookDoc } from '../../projections/webhooks.ts';

/** `Webhook` as the API answers it (spec §16): never the secret. */
export type WebhookView = {
  readonly id: string;
  readonly url: string;
  readonly events: WebhookType[];
  readonly target: string;
  readonly description?: string;
  readonly created_at: string;
  readonly created_by: Actor;
};

/** `Delivery` as the API answers it (spec §16). */
export type DeliveryView = {
  readonly id: string;
  readonly type: WebhookType;
  readonly status: DeliveryRecord['status'];
  readonly attempts: number;
  readonly last_status?: number;
  readonly last_error?: string;
  readonly created_at: string;
  readonly next_attempt_at?: string;
  readonly last_attempt_at?: string;
  /** The event's position in the log (the activity entry it came from). */
  readonly event: string;
  readonly site?: string;
};

export function webhookView(w: Omit<WebhookDoc, 'revision' | 'deleted' | 'secret'>): WebhookView {
  return {
    id: w.id,
    url: w.url,
    events: [...w.events],
    target: w.target,
    ...(w.description !== undefined ? { description: w.description } : {}),
    created_at: w.createdAt,
    created_by: w.createdBy,
  };
}

export function deliveryView(d: DeliveryRecord): DeliveryView {
  // A pending delivery with no time set is due now: it is shown as due at its creation or last attempt.
  const due = d.status === 'pending' ? (d.nextAttemptAt ?? d.lastAttemptAt ?? d.createdAt) : undefined;
  return {
    id: d.id,
    type: d.type,
    status: d.status,
    attempts: d.attempts,
    ...(d.lastStatus !== undefined ? { last_status: d.lastStatus } : {}),
    ...(d.lastError !== undefined ? { last_error: d.lastError } : {}),
    created_at: d.createdAt,
    ...(due !== undefined ? { next_attempt_at: due } : {}),
    ...(d.lastAttemptAt !== undefined ? { last_attempt_at: d.lastAttemptAt } : {}),
    event: d.event.id,
    ...(d.event.site !== undefined ? { site: d.event.site } : {}),
  };
}

import type { Identity } from '../../domain/auth.ts';
import { requireAdmin } from '../authorize.ts';
import { NotFoundError } from '../../domain/errors.ts';
import type { WebhookDeps } from './deps.ts';
import { isWebhookId } from './manage.ts';
import { deliveryView, type DeliveryView } from './view.ts';

/** Deliveries listed at most (newest first). */
export const MAX_DELIVERIES = 500;

async function existing(deps: Pick<WebhookDeps, 'webhooks'>, id: string) {
  const webhook = isWebhookId(id) ? await deps.webhooks.getWebhook(id) : undefined;
  if (!webhook) throw new NotFoundError(`no webhook ${id}`);
  return webhook;
}

/** A webhook's deliveries, newest first (admins). */
export async function listDeliveries(deps: Pick<WebhookDeps, 'webhooks'>, identity: Identity, input: { id: string; limit?: number }): Promise<{ deliveries: DeliveryView[] }> {
  requireAdmin(identity);
  await existing(deps, input.id);
  const limit = Math.min(input.limit ?? 100, MAX_DELIVERIES);
  return { deliveries: (await deps.webhooks.listDeliveries(input.id, limit)).map(deliveryView) };
}

/**
 * Sends a delivery again (admins): it is pending and due now, with a new 24-hour retry
 * window, and goes out in its place in the webhook's order (before anything newer still
 * waiting). Same `webhook-id`, so a receiver that already has it can drop it.
 */
export async function redeliver(deps: Pick<WebhookDeps, 'webhooks' | 'wakeSender'>, identity: Identity, input: { id: string; delivery: string }): Promise<DeliveryView> {
  requireAdmin(identity);
  await existing(deps, input.id);
  const found = await deps.webhooks.getDelivery(input.delivery);
  if (!found || found.webhookId !== input.id) throw new NotFoundError(`no delivery ${input.delivery} of webhook ${input.id}`);
  await deps.webhooks.redeliver(found.id);
  deps.wakeSender?.();
  const again = await deps.webhooks.getDelivery(found.id);
  return deliveryView(again ?? found);
}

import { randomBytes } from 'node:crypto';
import type { Identity } from '../../domain/auth.ts';
import { requireAdmin } from '../authorize.ts';
import { NotFoundError, ValidationError } from '../../domain/errors.ts';
import type { Recorded } from '../../domain/events.ts';
import { checkEvents, type WebhookRequest } from '../../domain/webhook/decide.ts';
import type { WebhookEvent } from '../../domain/webhook/events.ts';
import { webhookCommands } from '../aggregates.ts';
import { readLater, type Later } from '../contract/later.ts';
import type { WebhookDeps } from './deps.ts';
import { webhookView, type WebhookView } from './view.ts';

/** Webhook ids: `wh_` and 20 hex digits (random: creating one needs no sequence). */
const WEBHOOK_ID = /^wh_[0-9a-f]{20}$/;
export const isWebhookId = (id: string): boolean => WEBHOOK_ID.test(id);

/**
 * Subscribes a URL (admins). The URL's destination is checked where it resolves now (the
 * outbound client's policy: https, public addresses) before anything is recorded; each
 * delivery checks it again. The secret is in this answer and nowhere else.
 */
export async function createWebhook(deps: WebhookDeps, identity: Identity, request: Later<WebhookRequest>): Promise<WebhookView & { secret: string }> {
  requireAdmin(identity);
  const input = await readLater(request); // read once the caller is known to be an admin
  checkEvents(input.events); // the cheap refusals before the network
  const refusal = await deps.webhookOutbound.check(input.url);
  if (refusal) throw new ValidationError(`url: ${refusal.message}`);
  const id = `wh_${randomBytes(10).toString('hex')}`;
  // Standard Webhooks: `whsec_` and the base64 of a 24–64 byte key.
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  const { events } = await webhookCommands(deps).handle(id, identity.actor, { type: 'CreateWebhook', id, request: input, secret });
  const created = events[0] as Recorded<Extract<WebhookEvent, { type: 'WebhookCreated' }>>;
  const { secret: _once, ...data } = created.data;
  return { ...webhookView({ ...data, createdAt: created.meta.at, createdBy: created.meta.actor }), secret };
}

/** Every subscription (admins), oldest first. */
export async function listWebhooks(deps: Pick<WebhookDeps, 'webhooks'>, identity: Identity): Promise<{ webhooks: WebhookView[] }> {
  requireAdmin(identity);
  return { webhooks: (await deps.webhooks.listWebhooks()).map(webhookView) };
}

/** Ends a subscription (admins): once this returns, nothing more is sent to it. */
export async function deleteWebhook(deps: WebhookDeps, identity: Identity, input: { id: string }): Promise<void> {
  requireAdmin(identity);
  if (!isWebhookId(input.id)) throw new NotFoundError(`no webhook ${input.id}`);
  await webhookCommands(deps).handle(input.id, identity.actor, { type: 'DeleteWebhook', id: input.id });
}

import type { OutboundHttp } from '../../domain/ports.ts';
import type { WebhookDeliveries } from '../../projections/webhooks.ts';
import type { CycleDeps } from '../command.ts';

/** What the webhook use cases need: the command cycle, the delivery store, and the webhook outbound client. */
export type WebhookDeps = CycleDeps & {
  readonly webhooks: WebhookDeliveries;
  /** The outbound client with the webhook policy (SITES_WEBHOOK_ALLOW_PRIVATE): checks URLs at creation. */
  readonly outbound: OutboundHttp;
  /** Wakes the sender (a redelivery is due now); it also polls, so another instance's sender finds it too. */
  readonly wakeSender?: () => void;
};

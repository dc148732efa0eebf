import type { AppDeps } from '../deps.ts';

/** What the webhook use cases need of the use cases' dependencies: the command cycle, the delivery store, the webhook outbound client and the sender's wake-up. */
export type WebhookDeps = Pick<AppDeps, 'events' | 'waitForProjection' | 'now' | 'webhooks' | 'webhookOutbound' | 'wakeSender'>;

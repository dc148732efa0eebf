import type { WebhookType } from './names.ts';

/**
 * Events of a `webhook-…` stream. The signing secret is in the creation event: it must
 * survive restarts and rebuilds, and the log is the one durable record; every read path
 * (the API, the activity log) leaves it out, and it is shown once, in the creation answer.
 */
export type WebhookEvent =
  | {
      readonly type: 'WebhookCreated';
      readonly data: {
        readonly id: string;
        readonly url: string;
        readonly events: readonly WebhookType[];
        /** Grant target semantics: "" (every site), a group and its subtree, or one site path. */
        readonly target: string;
        readonly description?: string;
        /** `whsec_` + base64 of the HMAC key (Standard Webhooks). */
        readonly secret: string;
      };
    }
  | { readonly type: 'WebhookDeleted'; readonly data: { readonly id: string } };

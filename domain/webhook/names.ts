/** What a webhook can subscribe to (spec §16), in the dotted form receivers see. */
export const WEBHOOK_TYPES = [
  'site.published',
  'site.patched',
  'site.rolled_back',
  'site.unpublished',
  'site.restored',
  'site.purged',
  'preview.published',
  'preview.removed',
  'key.issued',
  'key.revoked',
  'connection.granted',
  'connection.revoked',
] as const;
export type WebhookType = (typeof WEBHOOK_TYPES)[number];

export const isWebhookType = (value: string): value is WebhookType => (WEBHOOK_TYPES as readonly string[]).includes(value);

/** Whether `target` narrows this type: only site and preview types belong to a site. */
export const isSiteScoped = (type: WebhookType): boolean => type.startsWith('site.') || type.startsWith('preview.');

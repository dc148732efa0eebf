import type { DomainEvent } from '../events.ts';

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

/**
 * The log's events that a webhook type stands for. Unpublishing a site quarantines it (it
 * waits in the trash), hence `site.unpublished` ← `SiteQuarantined`. A preview that expires
 * is gone as surely as one removed (what a pull-request comment or a deploy board reacts
 * to), hence `preview.removed` ← `PreviewRemoved` and `PreviewExpired` (`reason` tells them apart).
 */
const BY_EVENT: Partial<Record<DomainEvent['type'], WebhookType>> = {
  SitePublished: 'site.published',
  SitePatched: 'site.patched',
  SiteRolledBack: 'site.rolled_back',
  SiteQuarantined: 'site.unpublished',
  SiteRestored: 'site.restored',
  SitePurged: 'site.purged',
  PreviewPublished: 'preview.published',
  PreviewRemoved: 'preview.removed',
  PreviewExpired: 'preview.removed',
  KeyIssued: 'key.issued',
  KeyRevoked: 'key.revoked',
  ConnectionGranted: 'connection.granted',
  ConnectionRevoked: 'connection.revoked',
};

/** The webhook type of a log event, or undefined when webhooks are never told of it. */
export function webhookTypeOf(eventType: string): WebhookType | undefined {
  return BY_EVENT[eventType as DomainEvent['type']];
}

/** The log event types a webhook type stands for (the Activity filter accepts both spellings). */
export function eventTypesOf(type: WebhookType): string[] {
  return Object.entries(BY_EVENT)
    .filter(([, t]) => t === type)
    .map(([e]) => e);
}

/** Whether `target` narrows this type: only site and preview types belong to a site. */
export const isSiteScoped = (type: WebhookType): boolean => type.startsWith('site.') || type.startsWith('preview.');

import type { DomainEvent } from '../events.ts';
import type { WebhookType } from './names.ts';

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

import { pageUrlPath, type Variant } from '../../domain/site/previews.ts';
import type { Activity } from '../../projections/activity.ts';
import type { DeliveryRecord } from '../../projections/webhooks.ts';

/** The body of a delivery (spec §16): `{type, timestamp, data}`, `timestamp` being when the event happened. */
export type WebhookPayload = { readonly type: string; readonly timestamp: string; readonly data: Readonly<Record<string, unknown>> };

type Data = Readonly<Record<string, unknown>>;
const pick = (data: Data, names: Record<string, string>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(names).flatMap(([from, to]) => (data[from] !== undefined ? [[to, data[from]]] : [])));

const COUNTS = { filesAdded: 'files_added', filesChanged: 'files_changed', filesRemoved: 'files_removed', bytesAdded: 'bytes_added', bytesRemoved: 'bytes_removed' };

/** The URL of a site by its full path, or of its preview or permalink. */
export type SiteUrlOf = (path: string, variant?: Variant) => string;

/** What a receiver is told of each event, from the event as the activity log keeps it (no secrets there). */
function dataOf(event: Activity, siteUrl: SiteUrlOf): Record<string, unknown> {
  const d = event.data;
  const site = event.site !== undefined ? { site: event.site, url: siteUrl(event.site) } : {};
  const base = { ...site, actor: event.actor };
  switch (event.type) {
    case 'SitePublished': {
      const revision = d.revision as { id: string; files: number; size: number } | undefined;
      const meta = d.meta as { title?: string; repo?: string } | undefined;
      return { ...base, revision: revision?.id, created: d.created === true, title: meta?.title, ...(meta?.repo ? { repo: meta.repo } : {}), files: revision?.files, size: revision?.size, ...pick(d, COUNTS) };
    }
    case 'SiteRolledBack':
      return { ...base, revision: d.revisionId, previous_revision: d.previousRevisionId, ...pick(d, COUNTS) };
    case 'SitePatched':
      return { ...base, meta: d.meta };
    case 'PreviewPublished': {
      // Spec §14, §16: the preview's URL, revision and counts against live, and the changed pages as preview URLs.
      const name = String(d.name);
      const url = event.site !== undefined ? siteUrl(event.site, { kind: 'preview', name }) : undefined;
      const revision = d.revision as { id: string; files: number; size: number } | undefined;
      const meta = d.meta as { title?: string; repo?: string } | undefined;
      const pages = Array.isArray(d.pages) && url ? (d.pages as string[]).map((p) => `${url.replace(/\/$/, '')}${pageUrlPath(p)}`) : undefined;
      return {
        ...base,
        preview: name,
        ...(url ? { preview_url: url } : {}),
        revision: revision?.id,
        created: d.created === true,
        ...(meta?.title ? { title: meta.title } : {}),
        ...(meta?.repo ? { repo: meta.repo } : {}),
        expires_at: d.expiresAt,
        ...pick(d, COUNTS),
        ...(pages ? { pages } : {}),
      };
    }
    case 'PreviewRemoved':
    case 'PreviewExpired':
      return { ...base, preview: d.name, reason: event.type === 'PreviewExpired' ? 'expired' : 'removed' };
    case 'KeyIssued':
      return { ...base, key: pick(d, { id: 'id', name: 'name', admin: 'admin', grants: 'grants', expiresAt: 'expires_at' }) };
    case 'KeyRevoked':
      return { ...base, key: { id: d.id } };
    case 'ConnectionGranted':
      return { ...base, connection: pick(d, { id: 'id', clientName: 'client_name', user: 'user', grants: 'grants' }) };
    case 'ConnectionRevoked':
      return { ...base, connection: pick(d, { id: 'id', reason: 'reason' }) };
    default:
      // Unpublish, restore, purge: the site and who.
      return base;
  }
}

export function payloadOf(delivery: DeliveryRecord, siteUrl: SiteUrlOf): WebhookPayload {
  return { type: delivery.type, timestamp: delivery.event.at, data: dataOf(delivery.event, siteUrl) };
}

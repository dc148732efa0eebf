/** Webhooks of previews (spec §14, §16): which events they stand for, and what a receiver is told. */
import { describe, expect, it } from 'vitest';
import { payloadOf } from '../../app/webhooks/payload.ts';
import type { Variant } from '../../domain/site/previews.ts';
import { eventTypesOf, webhookTypeOf } from '../../domain/webhook/types.ts';
import type { Activity } from '../../projections/activity.ts';
import type { DeliveryRecord } from '../../projections/webhooks.ts';

const siteUrl = (path: string, variant?: Variant) => {
  const labels = path.split('/').reverse();
  if (variant) labels[0] = `${variant.kind === 'preview' ? variant.name : `v${variant.number}`}--${labels[0]}`;
  return `https://${labels.join('.')}.example.org/`;
};
const delivery = (event: Activity): DeliveryRecord =>
  ({ id: 'msg_1', webhookId: 'w', key: '1', type: webhookTypeOf(event.type)!, event, status: 'pending', attempts: 0, createdAt: event.at }) as DeliveryRecord;
const actor = { kind: 'key', id: 3, name: 'ci' } as const;

describe('preview webhooks', () => {
  it('preview.published stands for PreviewPublished; preview.removed for PreviewRemoved and PreviewExpired', () => {
    expect(webhookTypeOf('PreviewPublished')).toBe('preview.published');
    expect(eventTypesOf('preview.removed').sort()).toEqual(['PreviewExpired', 'PreviewRemoved']);
  });

  it('tells the preview URL, revision, counts against live and the changed pages as preview URLs', () => {
    const event: Activity = {
      id: '9',
      type: 'PreviewPublished',
      at: '2026-11-25T10:00:00.000Z',
      actor,
      site: 'docs/app',
      data: {
        siteId: 1,
        name: 'pr-42',
        created: true,
        revision: { id: '20261125T100000.000000000Z', manifest: 'm', files: 3, size: 30 },
        meta: { title: 'Fix', repo: 'https://github.com/o/r/pull/42' },
        expiresAt: '2026-12-09T10:00:00.000Z',
        pages: ['new/index.html', 'index.html', 'a b.html'],
        filesAdded: 1,
        filesChanged: 2,
        filesRemoved: 0,
      },
    };
    expect(payloadOf(delivery(event), siteUrl)).toEqual({
      type: 'preview.published',
      timestamp: event.at,
      data: {
        site: 'docs/app',
        url: 'https://app.docs.example.org/',
        actor,
        preview: 'pr-42',
        preview_url: 'https://pr-42--app.docs.example.org/',
        revision: '20261125T100000.000000000Z',
        created: true,
        title: 'Fix',
        repo: 'https://github.com/o/r/pull/42',
        expires_at: '2026-12-09T10:00:00.000Z',
        files_added: 1,
        files_changed: 2,
        files_removed: 0,
        pages: ['https://pr-42--app.docs.example.org/new/', 'https://pr-42--app.docs.example.org/', 'https://pr-42--app.docs.example.org/a%20b.html'],
      },
    });
  });

  it('says whether a preview was removed or expired', () => {
    const gone = (type: string): Activity => ({ id: '1', type, at: '2026-11-25T10:00:00.000Z', actor, site: 'docs/app', data: { siteId: 1, name: 'pr-42', revisionId: 'r', manifest: 'm' } });
    expect(payloadOf(delivery(gone('PreviewRemoved')), siteUrl).data).toMatchObject({ preview: 'pr-42', reason: 'removed' });
    expect(payloadOf(delivery(gone('PreviewExpired')), siteUrl)).toMatchObject({ type: 'preview.removed', data: { preview: 'pr-42', reason: 'expired' } });
  });
});

/** The webhook decider (domain/webhook/decide.ts): given the stream's events, when a command, then events or an error. */
import { describe, expect, it } from 'vitest';
import { fold, type Stamped } from '../../domain/decider.ts';
import { NotFoundError, ValidationError } from '../../domain/errors.ts';
import { webhookDecider, type WebhookCommand } from '../../domain/webhook/decide.ts';
import type { WebhookEvent } from '../../domain/webhook/events.ts';

const SECRET = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;
const stamp = (events: readonly WebhookEvent[]): Stamped<WebhookEvent>[] => events.map((e) => ({ ...e, meta: { at: '2026-01-01T00:00:00.000Z' } }));
const given = (...events: WebhookEvent[]) => ({
  when: (command: WebhookCommand) => () => webhookDecider.decide(command, fold(webhookDecider, stamp(events))),
});
const create = (request: Partial<{ url: string; events: string[]; target: string; description: string }> = {}, secret = SECRET): WebhookCommand => ({
  type: 'CreateWebhook',
  id: 'wh_00000000000000000001',
  request: { url: 'https://hooks.example/in', events: ['site.published'], ...request },
  secret,
});
const created: WebhookEvent = { type: 'WebhookCreated', data: { id: 'wh_00000000000000000001', url: 'https://hooks.example/in', events: ['site.published'], target: '', secret: SECRET } };

describe('the webhook decider', () => {
  it('creates a subscription with its types in a fixed order, once each, its target and description', () => {
    expect(given().when(create({ events: ['key.issued', 'site.published', 'key.issued'], target: 'docs/app', description: '  deploys  ' }))()).toEqual([
      { type: 'WebhookCreated', data: { id: 'wh_00000000000000000001', url: 'https://hooks.example/in', events: ['site.published', 'key.issued'], target: 'docs/app', description: 'deploys', secret: SECRET } },
    ]);
    expect(given().when(create())()).toEqual([created]);
  });

  it('refuses what would be a subscription that silently matches nothing or cannot be sent', () => {
    expect(given().when(create({ events: [] }))).toThrow(ValidationError);
    expect(given().when(create({ events: ['site.exploded'] }))).toThrow(/unknown event type "site.exploded"/);
    for (const target of ['docs/', '/docs', 'Docs', 'a//b', 'a/b/c/d']) expect(given().when(create({ target })), target).toThrow(/target/);
    for (const url of ['hooks.example/in', 'ftp://hooks.example/', 'https://user:pw@hooks.example/', 'https://hooks.example/#frag', `https://hooks.example/${'x'.repeat(2100)}`]) {
      expect(given().when(create({ url })), url).toThrow(ValidationError);
    }
    expect(given().when(create({ description: 'x'.repeat(501) }))).toThrow(/description/);
    expect(given().when(create({}, 'not-a-secret'))).toThrow(/whsec_/);
  });

  it('deletes a live subscription once; a missing or deleted one is not found', () => {
    expect(given(created).when({ type: 'DeleteWebhook', id: 'wh_00000000000000000001' })()).toEqual([{ type: 'WebhookDeleted', data: { id: 'wh_00000000000000000001' } }]);
    expect(given().when({ type: 'DeleteWebhook', id: 'wh_00000000000000000001' })).toThrow(NotFoundError);
    expect(given(created, { type: 'WebhookDeleted', data: { id: 'wh_00000000000000000001' } }).when({ type: 'DeleteWebhook', id: 'wh_00000000000000000001' })).toThrow(NotFoundError);
    expect(given(created).when(create())).toThrow(/already exists/);
  });
});

import { createHash } from 'node:crypto';

/**
 * The stable `webhook-id` of one event for one webhook (Standard Webhooks' message id):
 * derived from both, so every attempt, a redelivery and a fan-out repeated after a crash
 * all carry the same id, and receivers can drop duplicates by it.
 */
export function deliveryId(webhookId: string, position: string): string {
  return `msg_${createHash('sha256').update(`${webhookId}\n${position}`).digest('base64url').slice(0, 27)}`;
}

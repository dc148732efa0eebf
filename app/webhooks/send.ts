import { Webhook } from 'standardwebhooks';
import type { OutboundHttp } from '../../domain/ports.ts';
import type { AttemptRecord, DeliveryRecord, WebhookDeliveries, WebhookDoc } from '../../projections/webhooks.ts';
import { payloadOf, type SiteUrlOf } from './payload.ts';
import { RETRY_WINDOW_MS, retryDelay } from './schedule.ts';

export type SendDeps = {
  readonly webhooks: WebhookDeliveries;
  /** The webhook outbound client: https only (unless private is allowed), no redirects, 10 s, bounded answer, address checked at each request. */
  readonly outbound: OutboundHttp;
  /** Public URL of a site by its path, for payloads. */
  readonly siteUrl: SiteUrlOf;
  readonly now: () => Date;
  readonly random: () => number;
};

/** A last answer's excerpt kept in the delivery (the portal shows it). */
const ANSWER_EXCERPT = 200;

export type SendResult = 'succeeded' | 'retrying' | 'failed' | 'skipped';

/**
 * One attempt at one delivery: the body is built and signed with the webhook's secret
 * (Standard Webhooks: `webhook-id` is the delivery's stable id, `webhook-timestamp` the
 * time of this attempt, `webhook-signature` `v1,<base64 HMAC-SHA256>`), sent through the
 * outbound client, and the outcome recorded as a compare-and-set on the delivery as it was
 * read. A 2xx within 10 s succeeds; anything else (a refused destination, a redirect, a
 * timeout, another status) is retried after a growing, jittered wait until the 24-hour
 * window from the first attempt is over, then the delivery has failed.
 * A webhook deleted meanwhile is not sent to (`skipped`). `known`: the webhook as the caller
 * just read it (a lane sending several in a row; subscriptions never change, only end).
 */
export async function sendDelivery(deps: SendDeps, delivery: DeliveryRecord): Promise<SendResult> {
  const webhook = await deps.webhooks.getWebhook(delivery.webhookId);
  if (!webhook) return 'skipped';
  const outcome = await attemptDelivery(deps, delivery, webhook);
  await deps.webhooks.recordAttempt(delivery, outcome);
  return resultOf(outcome);
}

export const resultOf = (outcome: AttemptRecord): Exclude<SendResult, 'skipped'> => (outcome.status === 'pending' ? 'retrying' : outcome.status);

/**
 * The attempt itself, without recording it: what `sendDelivery` does between reading and
 * writing the delivery. The sender's lanes record several outcomes in one write.
 */
export async function attemptDelivery(deps: Pick<SendDeps, 'outbound' | 'siteUrl' | 'now' | 'random'>, delivery: DeliveryRecord, webhook: WebhookDoc): Promise<AttemptRecord> {
  return sendPrepared(deps, prepareAttempt(deps, delivery, webhook, signerFor(webhook)));
}

/** What signs a webhook's deliveries (the library's `Webhook`, its secret decoded once). */
export type Signer = Pick<Webhook, 'sign'>;
export const signerFor = (webhook: WebhookDoc): Signer => new Webhook(webhook.secret);

/** What an attempt's outcome is worked out from: the delivery as it was read. */
export type AttemptBasis = Pick<DeliveryRecord, 'id' | 'attempts' | 'windowStart'>;

/**
 * A delivery's request, built and signed, not sent yet: `signedAt`: when it was signed (its
 * `webhook-timestamp`). Plain data (a string body, no Buffer): a lane's worker thread builds
 * these and posts them to the sender.
 */
export type PreparedAttempt = {
  readonly delivery: AttemptBasis;
  readonly url: string;
  readonly signedAt: Date;
  /** The payload's JSON as signed: what goes on the wire. */
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
};

/**
 * Builds and signs one attempt. `signer`: the library's `Webhook` for this webhook's secret
 * (a lane keeps one while its webhook stays the same: the constructor decodes the secret).
 */
export function prepareAttempt(deps: Pick<SendDeps, 'siteUrl' | 'now'>, delivery: DeliveryRecord, webhook: WebhookDoc, signer: Signer): PreparedAttempt {
  const signedAt = deps.now();
  const body = JSON.stringify(payloadOf(delivery, deps.siteUrl));
  const basis = { id: delivery.id, attempts: delivery.attempts, ...(delivery.windowStart !== undefined ? { windowStart: delivery.windowStart } : {}) };
  return { delivery: basis, url: webhook.url, signedAt, body, headers: signedHeaders(delivery.id, signedAt, body, signer) };
}

/** The same attempt signed at `now` (one signed ahead in an earlier second than it is sent in). */
export function signAgain(prepared: PreparedAttempt, signer: Signer, now: Date): PreparedAttempt {
  return { ...prepared, signedAt: now, headers: signedHeaders(prepared.delivery.id, now, prepared.body, signer) };
}

function signedHeaders(id: string, at: Date, body: string, signer: Signer): Record<string, string> {
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signer.sign(id, at, body),
  };
}

/**
 * Sends a prepared attempt through the outbound client (which resolves and checks the
 * destination again, for every request) and says how it went. `onSent`: called once the
 * request is written, while its answer is awaited (not for one refused before sending).
 */
export async function sendPrepared(deps: Pick<SendDeps, 'outbound' | 'now' | 'random'>, prepared: PreparedAttempt, onSent?: () => void): Promise<AttemptRecord> {
  const { delivery } = prepared;
  // The attempt's time: when it goes out (a lane may have signed it a moment before, within the same second).
  const sentAt = deps.now();
  const result = await deps.outbound.request({ url: prepared.url, method: 'POST', headers: prepared.headers, body: prepared.body, ...(onSent ? { onSent } : {}) });
  const sent = sentAt.toISOString();
  const attempts = delivery.attempts + 1;
  const windowStart = delivery.windowStart ?? sent;
  if (result.ok && result.response.status >= 200 && result.response.status < 300) {
    return { attempts, windowStart, lastAttemptAt: sent, status: 'succeeded', lastStatus: result.response.status };
  }
  const common = { attempts, windowStart, lastAttemptAt: sent };
  const answer = result.ok
    ? { lastStatus: result.response.status, lastError: describeAnswer(result.response.status, result.response.headers, result.response.body) }
    : { lastError: result.refusal.message };
  const now = deps.now().getTime();
  const deadline = Date.parse(windowStart) + RETRY_WINDOW_MS;
  return now >= deadline
    ? { ...common, ...answer, status: 'failed' }
    : { ...common, ...answer, status: 'pending', nextAttemptAt: new Date(Math.min(now + retryDelay(attempts, deps.random), deadline)).toISOString() };
}

function describeAnswer(status: number, headers: Readonly<Record<string, string>>, body: Uint8Array): string {
  if (status >= 300 && status < 400) return `answered ${status} (redirects are not followed${headers.location ? `: to ${headers.location.slice(0, 100)}` : ''})`;
  // The status is the delivery's `last_status`; this is what the receiver said with it.
  const text = Buffer.from(body.subarray(0, ANSWER_EXCERPT * 4)).toString('utf8').replace(/\s+/g, ' ').trim().slice(0, ANSWER_EXCERPT);
  return text || `answered ${status} with no body`;
}

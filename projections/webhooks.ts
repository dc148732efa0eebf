import type { Actor, Recorded } from '../domain/events.ts';
import type { WebhookEvent } from '../domain/webhook/events.ts';
import { deliveryId } from '../domain/webhook/ids.ts';
import { isSiteScoped, type WebhookType } from '../domain/webhook/names.ts';
import { webhookTypeOf } from '../domain/webhook/types.ts';
import { activityRows, scopesOf, type Activity } from './activity.ts';
import { positionKey } from './positions.ts';
import type { ProjectionBatch } from './read-model.ts';

/** A subscription as the delivery side keeps it (the secret included: it signs). */
export type WebhookDoc = {
  readonly id: string;
  readonly url: string;
  readonly events: readonly WebhookType[];
  readonly target: string;
  readonly description?: string;
  readonly secret: string;
  readonly createdAt: string;
  readonly createdBy: Actor;
  /** Last revision of the webhook's stream applied (repeated events are skipped). */
  readonly revision: number;
  readonly deleted: boolean;
};

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

/** One event to send to one webhook, and how sending it went (spec §16 `Delivery`). */
export type DeliveryRecord = {
  /** `msg_…`, derived from the webhook and the event's position: the `webhook-id` header, the same on every attempt. */
  readonly id: string;
  readonly webhookId: string;
  /** The event's position key: a webhook's deliveries are sent in this order. */
  readonly key: string;
  readonly type: WebhookType;
  /** The event as the activity log shows it (no secrets); the payload is built from it when sending. */
  readonly event: Activity;
  readonly status: DeliveryStatus;
  readonly attempts: number;
  /** The event's time. */
  readonly createdAt: string;
  /** Unset: due now (never tried, or asked to be sent again). */
  readonly nextAttemptAt?: string;
  /** Start of the current 24-hour retry window: the first attempt (again after a redelivery). */
  readonly windowStart?: string;
  readonly lastAttemptAt?: string;
  readonly lastStatus?: number;
  readonly lastError?: string;
};

/** What an attempt changes on a delivery. */
export type AttemptRecord = Pick<DeliveryRecord, 'status' | 'attempts' | 'nextAttemptAt' | 'windowStart' | 'lastAttemptAt' | 'lastStatus' | 'lastError'>;

/**
 * The webhook side of the log's subscribers: a projection that keeps the subscriptions and
 * turns each event into one pending delivery per matching webhook (the outbox, written
 * with this store's own checkpoint), and the delivery state the sender updates. Fed by the
 * projector like the read model; sending happens elsewhere (app/webhooks/send.ts), so a
 * slow receiver never holds the projection. Adapters: SQLite (embedded) and MongoDB; both
 * pass test/contracts/webhooks.contract.ts.
 */
export interface WebhookDeliveries {
  /** The fan-out projection from this store's own checkpoint; rows written by `add` are idempotent, `commit` moves the checkpoint. */
  beginBatch(): Promise<ProjectionBatch>;
  checkpoint(): Promise<string | undefined>;
  /** Subscriptions not deleted, oldest first. */
  listWebhooks(): Promise<WebhookDoc[]>;
  /** A subscription not deleted. */
  getWebhook(id: string): Promise<WebhookDoc | undefined>;
  /** A webhook's deliveries, newest first. */
  listDeliveries(webhookId: string, limit: number): Promise<DeliveryRecord[]>;
  getDelivery(id: string): Promise<DeliveryRecord | undefined>;
  /** The oldest pending delivery of every subscription not deleted: each is the next one its webhook is sent. */
  heads(): Promise<DeliveryRecord[]>;
  /**
   * One webhook's oldest pending deliveries, up to `limit`, in order; none once it is deleted.
   * `after`: only those past this key (a sender reading on while the outcomes of the ones it
   * read before are not written yet).
   */
  lane(webhookId: string, limit: number, after?: string): Promise<DeliveryRecord[]>;
  /**
   * Stores an attempt's outcome on the delivery as it was read (`before`), unless it moved
   * since (another attempt was recorded, or it was asked to be sent again): compare-and-set.
   */
  recordAttempt(before: DeliveryRecord, outcome: AttemptRecord): Promise<boolean>;
  /** Several `recordAttempt`s in one write (a lane's run); each answers as `recordAttempt` would. */
  recordAttempts(attempts: readonly { readonly before: DeliveryRecord; readonly outcome: AttemptRecord }[]): Promise<boolean[]>;
  /** Makes a delivery pending and due now, with a new retry window; false when there is no such delivery. */
  redeliver(id: string): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * A delivery with an attempt's outcome (the previous attempt's fields replaced). The fields
 * that stay are named one by one: a rest pattern here (every field but the attempt's) cost
 * about 10 µs a delivery, several times the JSON of the whole record, on every outcome a
 * lane records.
 */
export function withOutcome(before: DeliveryRecord, outcome: AttemptRecord): DeliveryRecord {
  const { id, webhookId, key, type, event, createdAt } = before;
  return { id, webhookId, key, type, event, createdAt, ...outcome };
}
/** Does not compile once a delivery has a field that withOutcome neither keeps nor takes from the attempt (it would be dropped). */
type EveryFieldKept<Unlisted extends never> = Unlisted;
type WithOutcomeKeepsEveryField = EveryFieldKept<Exclude<keyof DeliveryRecord, 'id' | 'webhookId' | 'key' | 'type' | 'event' | 'createdAt' | keyof AttemptRecord>>;

/** A delivery asked to be sent again: pending, due now, with a new retry window; attempts and the last answer stay. */
export function redelivered(before: DeliveryRecord): DeliveryRecord {
  const { nextAttemptAt: _due, windowStart: _window, ...rest } = before;
  return { ...rest, status: 'pending' };
}

const isWebhookEvent = (e: Recorded): e is Recorded<WebhookEvent> => e.type === 'WebhookCreated' || e.type === 'WebhookDeleted';

/** Whether a webhook wants this event: its type is subscribed, and a site event is within its target. */
export function wants(webhook: WebhookDoc, type: WebhookType, site: string | undefined): boolean {
  if (webhook.deleted || !webhook.events.includes(type)) return false;
  if (!isSiteScoped(type) || webhook.target === '') return true;
  return site !== undefined && scopesOf(site).includes(webhook.target);
}

/**
 * Folds events into the subscriptions (`registry`, changed in place) and returns the
 * webhooks it changed and the deliveries the events cause (pure but for the map). Each
 * event goes to the subscriptions as they stood at its place in the log: a webhook hears
 * only of what happened after it was created, and nothing after it was deleted.
 */
export function fanOut(events: readonly Recorded[], registry: Map<string, WebhookDoc>): { webhooks: WebhookDoc[]; deliveries: DeliveryRecord[] } {
  const changed = new Map<string, WebhookDoc>();
  const deliveries: DeliveryRecord[] = [];
  for (const e of events) {
    if (isWebhookEvent(e)) {
      const before = registry.get(e.data.id);
      if (before && e.revision <= before.revision) continue;
      let after: WebhookDoc | undefined;
      if (e.type === 'WebhookCreated') {
        const d = e.data;
        after = {
          id: d.id,
          url: d.url,
          events: d.events,
          target: d.target,
          ...(d.description !== undefined ? { description: d.description } : {}),
          secret: d.secret,
          createdAt: e.meta.at,
          createdBy: e.meta.actor,
          revision: e.revision,
          deleted: false,
        };
      } else if (before) {
        after = { ...before, revision: e.revision, deleted: true };
      }
      if (after) {
        registry.set(after.id, after);
        changed.set(after.id, after);
      }
      continue;
    }
    const type = webhookTypeOf(e.type);
    if (!type) continue;
    let entry: Activity | undefined;
    for (const w of registry.values()) {
      entry ??= activityRows([e], undefined).rows[0]?.entry;
      if (!entry || !wants(w, type, entry.site)) continue;
      deliveries.push({
        id: deliveryId(w.id, e.position),
        webhookId: w.id,
        key: positionKey(e.position),
        type,
        event: entry,
        status: 'pending',
        attempts: 0,
        createdAt: e.meta.at,
      });
    }
  }
  return { webhooks: [...changed.values()], deliveries };
}

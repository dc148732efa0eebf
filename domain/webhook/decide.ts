import type { Decider, Stamped } from '../decider.ts';
import { NotFoundError, ValidationError } from '../errors.ts';
import { assertCanonicalTarget } from '../grants.ts';
import type { WebhookEvent } from './events.ts';
import { isWebhookType, WEBHOOK_TYPES, type WebhookType } from './names.ts';

export const MAX_DESCRIPTION = 500;
export const MAX_URL = 2048;

/** A webhook as asked for; the URL's destination was already checked by the outbound client. */
export type WebhookRequest = {
  readonly url: string;
  readonly events: readonly string[];
  readonly target?: string;
  readonly description?: string;
};

/** Commands on a webhook stream. The id and the secret come in with the command, so `decide` stays pure. */
export type WebhookCommand =
  | { readonly type: 'CreateWebhook'; readonly id: string; readonly request: WebhookRequest; readonly secret: string }
  | { readonly type: 'DeleteWebhook'; readonly id: string };

export type WebhookState = { readonly status: 'none' } | { readonly status: 'active'; readonly id: string } | { readonly status: 'deleted'; readonly id: string };

export const NO_WEBHOOK: WebhookState = { status: 'none' };

export function evolveWebhook(state: WebhookState, event: Stamped<WebhookEvent>): WebhookState {
  switch (event.type) {
    case 'WebhookCreated':
      return { status: 'active', id: event.data.id };
    case 'WebhookDeleted':
      return { status: 'deleted', id: event.data.id };
    default: {
      const never: never = event;
      return never;
    }
  }
}

/** The subscription list as stored: known types only, each once, in the order of WEBHOOK_TYPES. */
export function checkEvents(events: readonly string[]): WebhookType[] {
  if (events.length === 0) throw new ValidationError('events must name at least one event type');
  for (const e of events) {
    if (!isWebhookType(e)) throw new ValidationError(`unknown event type ${JSON.stringify(e)}; one of ${WEBHOOK_TYPES.join(', ')}`);
  }
  return WEBHOOK_TYPES.filter((t) => events.includes(t));
}

function checkUrl(raw: string): string {
  if (raw.length > MAX_URL) throw new ValidationError(`url is longer than ${MAX_URL} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ValidationError('url must be an absolute URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new ValidationError('url must be an https URL');
  if (url.username || url.password) throw new ValidationError('url must not carry user information');
  if (url.hash) throw new ValidationError('url must not have a #fragment');
  return url.href;
}

export function decideWebhook(command: WebhookCommand, state: WebhookState): WebhookEvent[] {
  switch (command.type) {
    case 'CreateWebhook': {
      if (state.status !== 'none') throw new Error(`webhook ${command.id} already exists`); // ids are random
      const { request } = command;
      const target = request.target ?? '';
      try {
        assertCanonicalTarget(target);
      } catch (err) {
        throw new ValidationError(`target: ${(err as Error).message}`);
      }
      const description = request.description?.trim();
      if (description !== undefined && description.length > MAX_DESCRIPTION) throw new ValidationError(`description is longer than ${MAX_DESCRIPTION} characters`);
      if (!/^whsec_[A-Za-z0-9+/]{32,}={0,2}$/.test(command.secret)) throw new Error('the webhook secret is not a whsec_ key');
      return [
        {
          type: 'WebhookCreated',
          data: {
            id: command.id,
            url: checkUrl(request.url),
            events: checkEvents(request.events),
            target,
            ...(description ? { description } : {}),
            secret: command.secret,
          },
        },
      ];
    }
    case 'DeleteWebhook':
      if (state.status !== 'active') throw new NotFoundError(`no webhook ${command.id}`);
      return [{ type: 'WebhookDeleted', data: { id: command.id } }];
    default: {
      const never: never = command;
      return never;
    }
  }
}

/** The webhook aggregate: one `webhook-<id>` stream per subscription. */
export const webhookDecider: Decider<WebhookCommand, WebhookState, WebhookEvent> = { decide: decideWebhook, evolve: evolveWebhook, initialState: NO_WEBHOOK };

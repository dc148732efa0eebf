import { evolveConnection, type ConnectionState } from '../domain/connection/state.ts';
import type { ConnectionEvent, KeyEvent, OAuthClientEvent, SiteEvent } from '../domain/events.ts';
import { evolveKey, NO_KEY, type KeyState } from '../domain/key/state.ts';
import { evolveClient, NO_CLIENT, type ClientState } from '../domain/oauth-client/state.ts';
import type { SiteAddress } from '../domain/paths.ts';
import { evolveSite, initialSiteState, type SiteState } from '../domain/site/state.ts';
import { connectionStream, keyStream, oauthClientStream, siteStream, webhookStream } from '../domain/streams.ts';
import { evolveWebhook, NO_WEBHOOK, type WebhookState } from '../domain/webhook/decide.ts';
import type { WebhookEvent } from '../domain/webhook/events.ts';
import { aggregate } from './command.ts';

/**
 * The aggregates, each bound once to its stream, initial state and evolve. A use case binds
 * one to the ports and hands it a decision: `siteCommands(deps).handle(address, actor, decide)`.
 */
export const siteCommands = aggregate<SiteAddress, SiteState, SiteEvent>({ stream: siteStream, initial: initialSiteState, evolve: evolveSite });

export const keyCommands = aggregate<number, KeyState, KeyEvent>({ stream: keyStream, initial: NO_KEY, evolve: evolveKey });

export const connectionCommands = aggregate<string, ConnectionState | null, ConnectionEvent>({
  stream: connectionStream,
  initial: null,
  evolve: (state, event) => evolveConnection(state, [event]),
});

export const oauthClientCommands = aggregate<string, ClientState, OAuthClientEvent>({ stream: oauthClientStream, initial: NO_CLIENT, evolve: evolveClient });

export const webhookCommands = aggregate<string, WebhookState, WebhookEvent>({ stream: webhookStream, initial: NO_WEBHOOK, evolve: evolveWebhook });

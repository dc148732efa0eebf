import type { Decider } from '../decider.ts';
import { NotFoundError } from '../errors.ts';
import type { OAuthClientEvent } from './events.ts';
import { clientUsable, evolveClient, NO_CLIENT, unusedExpired, type ClientState } from './state.ts';

/** How long a registration nobody consented to is kept (spec §2: 24 hours). */
export const UNUSED_CLIENT_TTL_MS = 24 * 3_600_000;

/** Commands on an `oauthclient-…` stream; the client id and the time come in with the command. */
export type OAuthClientCommand =
  | {
      readonly type: 'RegisterClient';
      readonly clientId: string;
      readonly name: string;
      readonly redirectUris: readonly string[];
      readonly clientUri?: string;
      readonly now: Date;
    }
  /** A consent is about to grant `connectionId` to the client. */
  | { readonly type: 'UseClient'; readonly clientId: string; readonly connectionId: string; readonly now: Date }
  /** The expiry job: end the registration if nobody used it by its deadline. */
  | { readonly type: 'ExpireClient'; readonly now: Date };

export function decideClient(command: OAuthClientCommand, state: ClientState): OAuthClientEvent[] {
  switch (command.type) {
    case 'RegisterClient': {
      if (state.status !== 'none') throw new Error(`client ${command.clientId} already registered`); // ids are 128 random bits
      const { type: _type, now, ...client } = command;
      const unusedExpiresAt = new Date(now.getTime() + UNUSED_CLIENT_TTL_MS).toISOString();
      return [{ type: 'ClientRegistered', data: { ...client, registeredAt: now.toISOString(), unusedExpiresAt } }];
    }
    case 'UseClient':
      // Unknown and expired clients are refused like unknown ones; only the first consent writes.
      if (!clientUsable(state, command.now)) throw new NotFoundError('the client is not registered with this server (or its registration expired)');
      if (state.used) return [];
      return [{ type: 'ClientUsed', data: { clientId: command.clientId, connectionId: command.connectionId } }];
    case 'ExpireClient':
      if (state.status !== 'registered' || state.used || !unusedExpired(state.unusedExpiresAt, command.now)) return [];
      return [{ type: 'ClientRegistrationExpired', data: { clientId: state.clientId!, registeredAt: state.registeredAt! } }];
    default: {
      const never: never = command;
      return never;
    }
  }
}

/** The OAuth client aggregate: one `oauthclient-<id>` stream per registration (RFC 7591). */
export const oauthClientDecider: Decider<OAuthClientCommand, ClientState, OAuthClientEvent> = {
  decide: decideClient,
  evolve: evolveClient,
  initialState: NO_CLIENT,
};

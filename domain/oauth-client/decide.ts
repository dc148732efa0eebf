import { NotFoundError } from '../errors.ts';
import type { OAuthClientEvent } from './events.ts';
import { clientUsable, unusedExpired, type ClientState } from './state.ts';

/** How long a registration nobody consented to is kept (spec §2: 24 hours). */
export const UNUSED_CLIENT_TTL_MS = 24 * 3_600_000;

export type RegisterClientInput = {
  readonly clientId: string;
  readonly name: string;
  readonly redirectUris: readonly string[];
  readonly clientUri?: string;
  readonly now: Date;
};

export function decideRegisterClient(state: ClientState, input: RegisterClientInput): OAuthClientEvent[] {
  if (state.status !== 'none') throw new Error(`client ${input.clientId} already registered`); // ids are 128 random bits
  const { now, ...client } = input;
  const unusedExpiresAt = new Date(now.getTime() + UNUSED_CLIENT_TTL_MS).toISOString();
  return [{ type: 'ClientRegistered', data: { ...client, registeredAt: now.toISOString(), unusedExpiresAt } }];
}

/**
 * A consent is about to grant `connectionId` to the client: the client must still be
 * usable (unknown and expired clients are refused like unknown ones). Only the first
 * consent writes `ClientUsed`; later ones change nothing.
 */
export function decideClientUse(state: ClientState, input: { clientId: string; connectionId: string; now: Date }): OAuthClientEvent[] {
  if (!clientUsable(state, input.now)) throw new NotFoundError('the client is not registered with this server (or its registration expired)');
  if (state.used) return [];
  return [{ type: 'ClientUsed', data: { clientId: input.clientId, connectionId: input.connectionId } }];
}

/** Ends a registration never used for a consent once its deadline has come; otherwise nothing. */
export function decideExpireClient(state: ClientState, now: Date): OAuthClientEvent[] {
  if (state.status !== 'registered' || state.used || !unusedExpired(state.unusedExpiresAt, now)) return [];
  return [{ type: 'ClientRegistrationExpired', data: { clientId: state.clientId!, registeredAt: state.registeredAt! } }];
}

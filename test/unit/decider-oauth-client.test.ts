/**
 * Decider specs of the OAuth client aggregate: given the client stream's events, when a
 * command, then the events (or the error). Unused registrations expire after 24 hours;
 * a client used for a consent is kept for good.
 */
import { describe, expect, it } from 'vitest';
import { NotFoundError } from '../../domain/errors.ts';
import type { OAuthClientEvent as ConnectionEvent } from '../../domain/events.ts';
import { decideClient, oauthClientDecider, UNUSED_CLIENT_TTL_MS } from '../../domain/oauth-client/decide.ts';
import { clientUsable, type ClientState } from '../../domain/oauth-client/state.ts';
import { deciderSpec } from '../support/decider-spec.ts';

const T0 = new Date('2026-03-01T12:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
const DAY = UNUSED_CLIENT_TTL_MS;

const spec = deciderSpec(oauthClientDecider, T0.toISOString());
const given = (...events: ConnectionEvent[]) => spec.state(...events);
const decideRegisterClient = (state: ClientState, input: { clientId: string; name: string; redirectUris: string[]; now: Date }) => decideClient({ type: 'RegisterClient', ...input }, state);
const decideClientUse = (state: ClientState, input: { clientId: string; connectionId: string; now: Date }) => decideClient({ type: 'UseClient', ...input }, state);
const decideExpireClient = (state: ClientState, now: Date) => decideClient({ type: 'ExpireClient', now }, state);

const registered: ConnectionEvent = {
  type: 'ClientRegistered',
  data: { clientId: 'c1', name: 'Agent', redirectUris: ['https://agent.example/cb'], registeredAt: T0.toISOString(), unusedExpiresAt: at(DAY).toISOString() },
};
/** Recorded before unused registrations expired: no deadline, and no way to tell from its stream whether it was used. */
const legacy: ConnectionEvent = {
  type: 'ClientRegistered',
  data: { clientId: 'c1', name: 'Agent', redirectUris: ['https://agent.example/cb'], registeredAt: T0.toISOString() },
};
const used: ConnectionEvent = { type: 'ClientUsed', data: { clientId: 'c1', connectionId: 'x1' } };
const expired: ConnectionEvent = { type: 'ClientRegistrationExpired', data: { clientId: 'c1', registeredAt: T0.toISOString() } };

describe('OAuth client decider', () => {
  it('registers a new client once, with its deadline a day later; a second registration of the same id is a bug', () => {
    expect(decideRegisterClient(given(), { clientId: 'c1', name: 'Agent', redirectUris: ['https://agent.example/cb'], now: T0 })).toEqual([registered]);
    expect(() => decideRegisterClient(given(registered), { clientId: 'c1', name: 'Agent', redirectUris: [], now: T0 })).toThrow(/already registered/);
  });

  it('the first consent marks the client used; later ones add nothing', () => {
    expect(decideClientUse(given(registered), { clientId: 'c1', connectionId: 'x1', now: at(DAY - 1) })).toEqual([used]);
    expect(decideClientUse(given(registered, used), { clientId: 'c1', connectionId: 'x2', now: at(30 * DAY) })).toEqual([]);
  });

  it('a consent for an unknown, expired, or unused-for-24-hours client is refused like an unknown one', () => {
    const use = (state: ReturnType<typeof given>, now = at(1000)) => () => decideClientUse(state, { clientId: 'c1', connectionId: 'x1', now });
    expect(use(given())).toThrow(NotFoundError);
    expect(use(given(registered, expired))).toThrow(NotFoundError);
    expect(use(given(registered), at(DAY))).toThrow(NotFoundError);
  });

  it('expires an unused registration at 24 hours, not a millisecond earlier', () => {
    expect(decideExpireClient(given(registered), at(DAY - 1))).toEqual([]);
    expect(decideExpireClient(given(registered), at(DAY))).toEqual([expired]);
  });

  it('never expires a used client, an expired one again, one that does not exist, or one registered before deadlines existed', () => {
    expect(decideExpireClient(given(registered, used), at(365 * DAY))).toEqual([]);
    expect(decideExpireClient(given(legacy), at(365 * DAY))).toEqual([]);
    expect(decideClientUse(given(legacy), { clientId: 'c1', connectionId: 'x1', now: at(365 * DAY) })).toEqual([used]);
    expect(decideExpireClient(given(registered, expired), at(2 * DAY))).toEqual([]);
    expect(decideExpireClient(given(), at(2 * DAY))).toEqual([]);
  });

  it('usable: registered, and used or younger than 24 hours', () => {
    expect(clientUsable(given(registered), at(DAY - 1))).toBe(true);
    expect(clientUsable(given(registered), at(DAY))).toBe(false);
    expect(clientUsable(given(registered, used), at(10 * DAY))).toBe(true);
    expect(clientUsable(given(registered, used, expired), at(1))).toBe(false);
    expect(clientUsable(given(), T0)).toBe(false);
    expect(clientUsable(given(legacy), at(365 * DAY))).toBe(true);
  });
});

describe('the OAuth client decider (spec form)', () => {
  it('given a registration, when the expiry job runs at its deadline, then it expires; once used, never', () => {
    spec.given(registered).when({ type: 'ExpireClient', now: at(DAY) }).then([expired]);
    spec.given(registered, used).when({ type: 'ExpireClient', now: at(DAY) }).then([]);
    spec.given(registered, expired).when({ type: 'UseClient', clientId: 'c1', connectionId: 'x9', now: at(1) }).thenThrows(NotFoundError);
  });
});

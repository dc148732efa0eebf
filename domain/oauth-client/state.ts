import type { OAuthClientEvent } from './events.ts';

/**
 * OAuth clients (RFC 7591 registrations), one `oauthclient-…` stream each. Registration is
 * unauthenticated, so a registration nobody ever consented to must not cost space for
 * ever. `ClientRegistered` records the deadline (`unusedExpiresAt`, UNUSED_CLIENT_TTL_MS
 * after registration); the first consent marks the client used (`ClientUsed`, on the
 * client's stream, before the connection is granted) and lifts it; past it, an unused
 * client is over (`ClientRegistrationExpired`). All of it is decided from the client's own
 * stream, whose expected revision settles the race between a consent and the expiry job.
 * Registrations recorded before the deadline existed carry none: nothing on their stream
 * says whether a connection was granted to them, so they are kept.
 */
export type ClientState = {
  readonly status: 'none' | 'registered' | 'expired';
  readonly clientId?: string;
  readonly registeredAt?: string;
  /** When the registration ends unless it is used first (absent: never). */
  readonly unusedExpiresAt?: string;
  /** A consent was granted to it (or was about to be): it never expires. */
  readonly used: boolean;
};

export const NO_CLIENT: ClientState = { status: 'none', used: false };

export function evolveClient(state: ClientState, event: OAuthClientEvent): ClientState {
  switch (event.type) {
    case 'ClientRegistered': {
      const d = event.data;
      return { status: 'registered', clientId: d.clientId, registeredAt: d.registeredAt, ...(d.unusedExpiresAt ? { unusedExpiresAt: d.unusedExpiresAt } : {}), used: false };
    }
    case 'ClientUsed':
      return { ...state, used: true };
    case 'ClientRegistrationExpired':
      return { ...state, status: 'expired' };
    default: {
      const never: never = event;
      return never;
    }
  }
}


/** Is an unused registration with this deadline over at `now`? (No deadline: never.) */
export function unusedExpired(unusedExpiresAt: string | undefined, now: Date): boolean {
  return unusedExpiresAt !== undefined && Date.parse(unusedExpiresAt) <= now.getTime();
}

/** Registered, and used or not past its deadline: what authorize and consent require. */
export function clientUsable(state: ClientState, now: Date): boolean {
  return state.status === 'registered' && (state.used || !unusedExpired(state.unusedExpiresAt, now));
}

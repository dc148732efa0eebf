import type { Decider, Stamped } from '../decider.ts';
import { ConflictError } from '../errors.ts';
import type { DomainClaimEvent } from './events.ts';

export type { DomainClaimEvent } from './events.ts';

/**
 * The claim on a custom domain: one stream per domain (`domain-<name>`, domain/streams.ts),
 * so the event store's expected-revision check is what makes a domain belong to at most one
 * site, whichever instance attaches it (spec §15). The claim leads and the site follows:
 * a site records `DomainAttached` only after its claim is in this stream, and a claim is
 * released only after its site recorded `DomainDetached` (or `SitePurged`), so a domain no
 * one claims is attached nowhere.
 *
 * A claim names the site stream revision its `DomainAttached` is to follow. That is what lets
 * anyone tell, from the site's stream alone, whether a claim can still be completed: once the
 * site's stream has moved past that revision without attaching the domain, the attach that
 * claimed it can never land (it appends with that revision expected), so the claim is dead
 * and may be taken over (app/domains/claims.ts).
 */

/** Who holds a domain, and since when (the claim's time: how long an unfinished attach has been waiting). */
export type DomainHolder = { readonly site: string; readonly siteId: number; readonly siteRevision: number; readonly at: string };

export type DomainClaimState = { readonly holder?: DomainHolder };

export const initialClaimState: DomainClaimState = {};

export function evolveClaim(state: DomainClaimState, event: Stamped<DomainClaimEvent>): DomainClaimState {
  switch (event.type) {
    case 'DomainClaimed': {
      const { site, siteId, siteRevision } = event.data;
      return { holder: { site, siteId, siteRevision, at: event.meta.at } };
    }
    case 'DomainReleased':
      return {};
    default: {
      const never: never = event;
      return never;
    }
  }
}

/** A claim as a site asks for it: the site, its incarnation, and the stream revision its attach will follow. */
export type Claimant = { readonly site: string; readonly siteId: number; readonly siteRevision: number };

export type DomainClaimCommand =
  | {
      readonly type: 'ClaimDomain';
      readonly domain: string;
      readonly claimant: Claimant;
      /**
       * The holder found, by reading its site's stream, to hold the domain no longer (its
       * attach can never land): only that exact holder may be replaced. Checked before deciding
       * (app/domains/claims.ts), since it needs another stream.
       */
      readonly lapsed?: DomainHolder;
    }
  | { readonly type: 'ReleaseDomain'; readonly domain: string; readonly site: string; readonly siteId: number };

const sameHolder = (a: DomainHolder, b: DomainHolder): boolean => a.site === b.site && a.siteId === b.siteId && a.siteRevision === b.siteRevision && a.at === b.at;

export function decideClaim(command: DomainClaimCommand, state: DomainClaimState): DomainClaimEvent[] {
  switch (command.type) {
    case 'ClaimDomain': {
      const { domain, claimant } = command;
      const claimed: DomainClaimEvent = { type: 'DomainClaimed', data: { domain, ...claimant } };
      const holder = state.holder;
      if (!holder) return [claimed];
      if (holder.site === claimant.site && holder.siteId === claimant.siteId) {
        // The site's own claim (a retried attach): renewed when the site's stream has moved since.
        return holder.siteRevision === claimant.siteRevision ? [] : [claimed];
      }
      if (command.lapsed && sameHolder(command.lapsed, holder)) return [claimed];
      throw new ConflictError(`${domain} is attached to ${holder.site}`);
    }
    case 'ReleaseDomain': {
      const holder = state.holder;
      // Only the holder's own release counts: a claim another site has taken over meanwhile stays.
      if (!holder || holder.site !== command.site || holder.siteId !== command.siteId) return [];
      return [{ type: 'DomainReleased', data: { domain: command.domain, site: command.site, siteId: command.siteId } }];
    }
    default: {
      const never: never = command;
      return never;
    }
  }
}

/** The claim aggregate: one stream per custom domain. */
export const domainClaimDecider: Decider<DomainClaimCommand, DomainClaimState, DomainClaimEvent> = {
  decide: decideClaim,
  evolve: evolveClaim,
  initialState: initialClaimState,
};

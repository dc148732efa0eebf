import { MAX_DOMAINS_PER_SITE } from '../custom-domain/name.ts';
import { ConflictError, NotFoundError } from '../errors.ts';
import { fullPath, type SiteAddress } from '../paths.ts';
import { allows, type LifecycleCommand } from './lifecycle.ts';
import type { SiteDomainEvent } from './events.ts';
import type { SiteState } from './state.ts';

/**
 * Custom domains on the site's side (spec §15): which domains the site answers to, as events
 * of its own stream. Who may hold a domain at all is the claim's business
 * (domain/custom-domain/claim.ts): a use case records `DomainAttached` only once the site's
 * claim is in place (app/domains/).
 */
export type SiteDomainCommand =
  | { readonly type: 'AttachDomain'; readonly address: SiteAddress; readonly domain: string }
  | { readonly type: 'DetachDomain'; readonly address: SiteAddress; readonly domain: string }
  /** Ends an attach that claimed `domain` for incarnation `siteId` and never recorded it (see `DomainDetached.reason`). */
  | { readonly type: 'AbandonDomainAttach'; readonly address: SiteAddress; readonly domain: string; readonly siteId: number };

/** What an attach of `domain` comes to on this state: `attach`, or nothing to do (already attached). Throws what the site refuses. */
export function attachOutcome(state: SiteState, address: SiteAddress, domain: string): 'attach' | 'attached' {
  requireFor(state, 'ATTACH_DOMAIN', address);
  const domains = state.domains ?? [];
  if (domains.includes(domain)) return 'attached';
  if (domains.length >= MAX_DOMAINS_PER_SITE) {
    throw new ConflictError(`${fullPath(address)} already has ${MAX_DOMAINS_PER_SITE} custom domains, the most a site may have: detach one first`);
  }
  return 'attach';
}

export function decideSiteDomain(command: SiteDomainCommand, state: SiteState): SiteDomainEvent[] {
  switch (command.type) {
    case 'AttachDomain': {
      if (attachOutcome(state, command.address, command.domain) === 'attached') return []; // idempotent: attached already
      return [{ type: 'DomainAttached', data: { siteId: state.siteId!, domain: command.domain } }];
    }
    case 'DetachDomain': {
      const siteId = requireFor(state, 'DETACH_DOMAIN', command.address);
      if (!(state.domains ?? []).includes(command.domain)) throw new NotFoundError(`${command.domain} is not attached to ${fullPath(command.address)}`);
      return [{ type: 'DomainDetached', data: { siteId, domain: command.domain } }];
    }
    case 'AbandonDomainAttach': {
      // Only the incarnation that claimed it, and only while the domain is not attached: otherwise there is nothing unfinished.
      if (state.siteId !== command.siteId || !allows(state.status, 'ATTACH_DOMAIN') || (state.domains ?? []).includes(command.domain)) return [];
      return [{ type: 'DomainDetached', data: { siteId: command.siteId, domain: command.domain, reason: 'unfinished' } }];
    }
    default: {
      const never: never = command;
      return never;
    }
  }
}

/** What a purge records before `SitePurged`: every domain detached, so the history says where each went. */
export function detachedByPurge(state: SiteState, siteId: number): SiteDomainEvent[] {
  return (state.domains ?? []).map((domain) => ({ type: 'DomainDetached', data: { siteId, domain, reason: 'purged' } }));
}

/** The domains after one of these events (kept sorted, so every reader lists them alike). */
export function evolveDomains(domains: readonly string[] | undefined, event: SiteDomainEvent): readonly string[] | undefined {
  const current = domains ?? [];
  const { domain } = event.data;
  if (event.type === 'DomainAttached') return current.includes(domain) ? domains : [...current, domain].sort();
  if (!current.includes(domain)) return domains;
  const rest = current.filter((d) => d !== domain);
  return rest.length > 0 ? rest : undefined;
}

function requireFor(state: SiteState, command: LifecycleCommand, address: SiteAddress): number {
  if (!allows(state.status, command) || state.siteId === undefined) {
    const where = fullPath(address);
    throw new NotFoundError(state.status === 'quarantined' ? `site ${where} is in the trash` : `no site ${where}`);
  }
  return state.siteId;
}

import { fold } from '../../domain/decider.ts';
import { domainClaimDecider, type Claimant, type DomainClaimCommand, type DomainHolder } from '../../domain/custom-domain/claim.ts';
import { ConflictError, StreamConflictError } from '../../domain/errors.ts';
import type { Actor, Recorded, SiteEvent } from '../../domain/events.ts';
import { parseSitePath } from '../../domain/paths.ts';
import { siteDecider } from '../../domain/site/decide.ts';
import { domainStream, siteStream } from '../../domain/streams.ts';
import { aggregate, type CycleDeps } from '../command.ts';

/**
 * The claims on custom domains (spec §15; the rules in domain/custom-domain/claim.ts). The
 * read model has no document of them: only the write side reads a claim, from its stream.
 */
const claims = aggregate({ stream: domainStream, decider: domainClaimDecider, projected: false });

/**
 * How long an attach may take between its claim and its site's `DomainAttached` before
 * another site may end it. The two appends follow each other within milliseconds, so only a
 * crashed or stalled attach waits this long. It decides nothing about safety (the site
 * stream's expected revision does, see `abandon`): it only spares an attach under way from
 * being ended by a concurrent one, whatever the clocks of two instances say.
 */
export const CLAIM_PATIENCE_MS = 30_000;

/** What the holder of a claim is to its domain, read from its site's stream. */
type Verdict =
  | { readonly kind: 'holds'; readonly inTrash: boolean }
  /** Its attach may still land (the site's stream has not moved since the claim), and not for long yet. */
  | { readonly kind: 'pending' }
  /** Its attach may still land, but has waited past CLAIM_PATIENCE_MS: it may be ended. */
  | { readonly kind: 'stalled' }
  /** Its attach can never land: the incarnation is gone, or its stream moved past the claim without it. */
  | { readonly kind: 'gone' };

async function verdict(deps: CycleDeps, domain: string, holder: DomainHolder): Promise<{ verdict: Verdict; revision: number }> {
  const { events, revision } = await deps.events.readStream(siteStream(parseSitePath(holder.site)));
  const state = fold(siteDecider, events as readonly Recorded<SiteEvent>[]);
  if (state.siteId !== holder.siteId || (state.status !== 'live' && state.status !== 'quarantined')) return { verdict: { kind: 'gone' }, revision };
  if (state.domains?.includes(domain)) return { verdict: { kind: 'holds', inTrash: state.status === 'quarantined' }, revision };
  // Its DomainAttached is appended with `siteRevision` expected: past it, that append fails for good.
  if (revision > holder.siteRevision) return { verdict: { kind: 'gone' }, revision };
  const waited = deps.now().getTime() - Date.parse(holder.at);
  return { verdict: { kind: waited < CLAIM_PATIENCE_MS ? 'pending' : 'stalled' }, revision };
}

/**
 * Ends a stalled attach: records on its site's stream, with the claim's revision expected,
 * that the attach never finished (`DomainDetached`, reason `unfinished`). Once that is in,
 * the stalled attach's own append (same revision expected) can never land. False when the
 * stream moved first: the holder's case is then decided again.
 */
async function abandon(deps: CycleDeps, actor: Actor, domain: string, holder: DomainHolder): Promise<boolean> {
  const address = parseSitePath(holder.site);
  const stream = siteStream(address);
  const { events, revision } = await deps.events.readStream(stream);
  if (revision !== holder.siteRevision) return false;
  const state = fold(siteDecider, events as readonly Recorded<SiteEvent>[]);
  const decided = siteDecider.decide({ type: 'AbandonDomainAttach', address, domain, siteId: holder.siteId }, state);
  if (decided.length === 0) return false;
  try {
    const { revision: last } = await deps.events.append(stream, decided.map((e) => ({ ...e, meta: { actor, at: deps.now().toISOString() } })), revision);
    await deps.waitForProjection(stream, last);
    return true;
  } catch (err) {
    if (err instanceof StreamConflictError) return false;
    throw err;
  }
}

/**
 * Claims `domain` for the claimant's site, at the site stream revision its attach will be
 * appended at. The site's own claim is renewed (a retried attach); a free domain is claimed;
 * another site's claim is taken over only when its holder can never complete it (see
 * `verdict`), after ending a stalled attach. Otherwise 409: the domain is attached elsewhere,
 * or being attached right now.
 */
export async function claimDomain(deps: CycleDeps, actor: Actor, domain: string, claimant: Claimant): Promise<void> {
  await claims(deps).handle(domain, actor, async (state): Promise<DomainClaimCommand> => {
    const command = { type: 'ClaimDomain', domain, claimant } as const;
    const holder = state.holder;
    if (!holder || (holder.site === claimant.site && holder.siteId === claimant.siteId)) return command;
    for (let attempt = 0; attempt < 2; attempt++) {
      const { verdict: v } = await verdict(deps, domain, holder);
      switch (v.kind) {
        case 'holds':
          throw new ConflictError(`${domain} is attached to ${holder.site}${v.inTrash ? ' (in the trash: detach it there, or purge that site, first)' : ''}`);
        case 'pending':
          throw new ConflictError(`${domain} is being attached to ${holder.site} right now`);
        case 'gone':
          return { ...command, lapsed: holder };
        case 'stalled':
          if (await abandon(deps, actor, domain, holder)) return { ...command, lapsed: holder };
          continue; // its stream moved meanwhile: decided again from there
      }
    }
    throw new ConflictError(`${domain} is being attached to ${holder.site} right now`);
  });
}

/** Releases `domain`'s claim if the site (this incarnation) still holds it; a claim another site holds by now stays. */
export async function releaseDomain(deps: CycleDeps, actor: Actor, domain: string, site: string, siteId: number): Promise<void> {
  await claims(deps).handle(domain, actor, { type: 'ReleaseDomain', domain, site, siteId });
}

/**
 * After a site recorded `DomainDetached` (a detach, or a purge), its claims are released.
 * A crash before this leaves a claim its site can never complete (its stream moved past the
 * claim without the domain), which the next site to ask takes over: nothing blocks for good.
 */
export async function releaseDetached(deps: CycleDeps, actor: Actor, site: string, events: readonly SiteEvent[]): Promise<void> {
  for (const event of events) {
    if (event.type === 'DomainDetached') await releaseDomain(deps, actor, event.data.domain, site, event.data.siteId);
  }
}

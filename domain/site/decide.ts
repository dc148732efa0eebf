import { ConflictError, NotFoundError, ValidationError } from '../errors.ts';
import { fullPath, type SiteAddress } from '../paths.ts';
import { nextRevisionId } from '../revision-id.ts';
import type { Decider } from '../decider.ts';
import type { ChangeCounts } from '../manifest-diff.ts';
import type { RevisionInfo, SiteEvent, SiteMeta } from './events.ts';
import { decideSiteDomain, detachedByPurge, type SiteDomainCommand } from './domains.ts';
import { allows, type LifecycleCommand } from './lifecycle.ts';
import { mergeMeta, patchMeta, sameMeta, type MetaInput, type MetaPatch } from './meta.ts';
import { evolveSite, initialSiteState, type SiteState } from './state.ts';
import { decidePreview, expiredPreviews, type PreviewCommand } from './decide-previews.ts';

export type Versioning = { readonly enabled: boolean; readonly keep: number };

/** Commands on a site stream. Time, ids and hashes come in with the command so `decide` stays pure. */
export type SiteCommand =
  | {
      readonly type: 'PublishSite';
      readonly address: SiteAddress;
      readonly meta: MetaInput;
      /** Content already stored: manifest hash, counts and favicon. The id is assigned here. */
      readonly content: Omit<RevisionInfo, 'id'>;
      readonly nowNanos: bigint;
      /** Id for a new incarnation; only used when the address has no live or quarantined site. */
      readonly newSiteId: number | undefined;
      readonly versioning: Versioning;
      /** The changelog's counts against the live revision (all added for a new incarnation), measured before deciding. */
      readonly changes?: ChangeCounts;
    }
  | { readonly type: 'UnpublishSite'; readonly address: SiteAddress }
  /** `now`: previews whose time came while the site was in the trash expire instead of coming back (spec §14). */
  | { readonly type: 'RestoreSite'; readonly address: SiteAddress; readonly now?: string }
  | { readonly type: 'PurgeSite'; readonly address: SiteAddress }
  | { readonly type: 'PatchSite'; readonly address: SiteAddress; readonly patch: MetaPatch }
  | {
      readonly type: 'RollbackSite';
      readonly address: SiteAddress;
      /** Undefined → the most recently archived revision; `current` → no-op. */
      readonly revision: string | undefined;
      readonly versioning: Versioning;
      /** What the chosen revision changes against the live one (see `rollbackTarget`), measured before deciding. */
      readonly changes?: ChangeCounts;
    }
  // Custom domains (spec §15): AttachDomain, DetachDomain, AbandonDomainAttach.
  | SiteDomainCommand
  | PreviewCommand;

/** Does this command need a freshly allocated site id? (asked before `decide`, which stays pure) */
export function needsNewSiteId(state: SiteState): boolean {
  return state.status === 'absent' || state.status === 'purged';
}

function requireState(state: SiteState, command: LifecycleCommand, address: SiteAddress): number {
  if (!allows(state.status, command) || state.siteId === undefined) {
    const where = fullPath(address);
    if (state.status === 'live') throw new NotFoundError(`site ${where} is live, not in the trash`);
    if (state.status === 'quarantined') throw new NotFoundError(`site ${where} is in the trash`);
    throw new NotFoundError(`no site ${where}`);
  }
  return state.siteId;
}

export function decideSite(command: SiteCommand, state: SiteState): SiteEvent[] {
  switch (command.type) {
    case 'PublishSite':
      return decidePublish(command, state);
    case 'UnpublishSite': {
      const siteId = requireState(state, 'UNPUBLISH', command.address);
      return [{ type: 'SiteQuarantined', data: { siteId } }];
    }
    case 'RestoreSite': {
      const siteId = requireState(state, 'RESTORE', command.address);
      return [...(command.now !== undefined ? expiredPreviews(state, command.now) : []), { type: 'SiteRestored', data: { siteId } }];
    }
    case 'PurgeSite': {
      const siteId = requireState(state, 'PURGE', command.address);
      // Its previews go with it (spec §14): their revisions are collected like the site's own.
      const revisions = [...(state.live ? [state.live] : []), ...state.archived, ...(state.previews ?? []).map((p) => p.revision)].map(droppedRef);
      return [...detachedByPurge(state, siteId), { type: 'SitePurged', data: { siteId, revisions } }];
    }
    case 'PatchSite': {
      const siteId = requireState(state, 'PATCH', command.address);
      const meta = patchMeta(state.meta!, command.patch);
      return [{ type: 'SitePatched', data: { siteId, meta } }];
    }
    case 'RollbackSite':
      return decideRollback(command, state);
    case 'PublishPreview':
    case 'RemovePreview':
    case 'ExpirePreviews':
      return decidePreview(command, state);
    case 'AttachDomain':
    case 'DetachDomain':
    case 'AbandonDomainAttach':
      return decideSiteDomain(command, state);
    default: {
      const never: never = command;
      return never;
    }
  }
}

function decidePublish(command: Extract<SiteCommand, { type: 'PublishSite' }>, state: SiteState): SiteEvent[] {
  // Only the trash refuses a publish (spec §4): restore or purge first.
  if (!allows(state.status, 'PUBLISH')) throw inTrash(command.address);
  const { group, slug } = command.address;
  if (state.status === 'live' && state.live!.manifest === command.content.manifest) {
    // The live files again (a re-run CI job): no revision, so real ones stay in the KEEP window;
    // only a metadata change is recorded, as a patch would record it.
    const meta = mergeMeta(state.meta, command.meta);
    return sameMeta(meta, state.meta!) ? [] : [{ type: 'SitePatched', data: { siteId: state.siteId!, meta } }];
  }
  // Its permalink's number (spec §14): one more than the last of this incarnation, 1 for a new one.
  const number = needsNewSiteId(state) ? 1 : (state.lastNumber ?? 0) + 1;
  const revision: RevisionInfo = { ...command.content, id: nextRevisionId(command.nowNanos, state.latestRevisionId), number };
  if (needsNewSiteId(state)) {
    if (command.newSiteId === undefined) throw new Error('a new site needs an allocated id');
    if (command.meta.title === undefined) throw new ValidationError('meta.title is required for a new site');
    const meta: SiteMeta = mergeMeta(undefined, command.meta);
    return [{ type: 'SitePublished', data: { siteId: command.newSiteId, group, slug, created: true, revision, meta, ...command.changes } }];
  }
  // Replace: the previous live content is archived or discarded.
  const siteId = state.siteId!;
  const previous = state.live!;
  const meta = mergeMeta(state.meta, command.meta);
  const published: SiteEvent = { type: 'SitePublished', data: { siteId, group, slug, created: false, revision, meta, ...command.changes } };
  if (!command.versioning.enabled) {
    return [published, dropEvent(siteId, previous)];
  }
  const archived = [previous, ...state.archived];
  const dropped = archived.slice(command.versioning.keep).reverse(); // archived longest ago goes first
  return [
    { type: 'SiteArchived', data: { siteId, revisionId: previous.id } },
    published,
    ...dropped.map((r) => dropEvent(siteId, r)),
  ];
}

/** Spec §4: a publish to a path in the trash is refused, whatever the key holds. */
export function inTrash(address: SiteAddress): ConflictError {
  return new ConflictError(`${fullPath(address)} is in the trash: restore it or purge it first`);
}

/**
 * The revision a rollback makes live: the one named, or the most recently archived one;
 * undefined when there is nothing to do (`current`, the live id) or nothing to choose.
 */
export function rollbackTarget(state: SiteState, revision: string | undefined): RevisionInfo | undefined {
  if (revision === 'current' || revision === state.live?.id) return undefined;
  return revision === undefined ? state.archived[0] : state.archived.find((r) => r.id === revision);
}

function decideRollback(command: Extract<SiteCommand, { type: 'RollbackSite' }>, state: SiteState): SiteEvent[] {
  const siteId = requireState(state, 'ROLLBACK', command.address);
  if (!command.versioning.enabled) throw new ConflictError('versioning is off, so there is nothing to roll back to');
  if (command.revision === 'current' || command.revision === state.live!.id) return [];
  if (state.archived.length === 0) throw new ConflictError(`site ${fullPath(command.address)} has no archived revision`);
  const chosen = rollbackTarget(state, command.revision);
  if (!chosen) throw new NotFoundError(`site ${fullPath(command.address)} has no revision ${command.revision}`);
  return [{ type: 'SiteRolledBack', data: { siteId, revisionId: chosen.id, previousRevisionId: state.live!.id, ...command.changes } }];
}

/** What garbage collection needs to know about a revision that is no longer retained. */
function droppedRef(r: RevisionInfo): { id: string; manifest: string; favicon?: string } {
  return { id: r.id, manifest: r.manifest, ...(r.favicon ? { favicon: r.favicon.hash } : {}) };
}

function dropEvent(siteId: number, r: RevisionInfo): SiteEvent {
  const { id, ...rest } = droppedRef(r);
  return { type: 'RevisionDropped', data: { siteId, revisionId: id, ...rest } };
}

/** The site aggregate: one stream per address (domain/streams.ts). */
export const siteDecider: Decider<SiteCommand, SiteState, SiteEvent> = { decide: decideSite, evolve: evolveSite, initialState: initialSiteState };

import { ConflictError, NotFoundError } from '../errors.ts';
import type { ChangeCounts } from '../manifest-diff.ts';
import { fullPath, type SiteAddress } from '../paths.ts';
import { nextRevisionId } from '../revision-id.ts';
import type { RevisionInfo, SiteEvent } from './events.ts';
import { allows } from './lifecycle.ts';
import { assertPreviewName, findPreview, mergePreviewMeta, samePreviewMeta, type PreviewGone, type PreviewInfo, type PreviewMeta } from './previews.ts';
import type { SiteState } from './state.ts';

/** Commands on a site's previews (spec §14). Time, ids and counts come in with the command. */
export type PreviewCommand =
  | {
      readonly type: 'PublishPreview';
      readonly address: SiteAddress;
      readonly name: string;
      readonly meta: PreviewMeta;
      /** Content already stored: manifest hash, counts and favicon. The id is assigned here. */
      readonly content: Omit<RevisionInfo, 'id' | 'number'>;
      readonly nowNanos: bigint;
      /** `SITES_PREVIEW_TTL` from now. */
      readonly expiresAt: string;
      /** `SITES_MAX_PREVIEWS_PER_SITE`. */
      readonly maxPreviews: number;
      /** Its files against the live revision, and the pages a comment links to, measured before deciding. */
      readonly changes?: ChangeCounts;
      readonly pages?: readonly string[];
    }
  | { readonly type: 'RemovePreview'; readonly address: SiteAddress; readonly name: string }
  /** The expiry job: every preview whose time has come by `now` (an ISO-8601 instant) goes, whatever the site's state. */
  | { readonly type: 'ExpirePreviews'; readonly address: SiteAddress; readonly now: string };

export function decidePreview(command: PreviewCommand, state: SiteState): SiteEvent[] {
  switch (command.type) {
    case 'PublishPreview':
      return decidePublishPreview(command, state);
    case 'RemovePreview': {
      const siteId = liveSite(state, command.address);
      const preview = findPreview(state.previews, command.name);
      if (!preview) throw new NotFoundError(`site ${fullPath(command.address)} has no preview ${command.name}`);
      return [{ type: 'PreviewRemoved', data: gone(siteId, preview) }];
    }
    case 'ExpirePreviews':
      return expiredPreviews(state, command.now);
    default: {
      const never: never = command;
      return never;
    }
  }
}

/** A preview needs its site live (spec §14: 404 otherwise, publish it once first). */
function liveSite(state: SiteState, address: SiteAddress): number {
  if (!allows(state.status, 'PREVIEW') || state.siteId === undefined) {
    throw new NotFoundError(state.status === 'quarantined' ? `site ${fullPath(address)} is in the trash` : `no site ${fullPath(address)}: publish it once first`);
  }
  return state.siteId;
}

function decidePublishPreview(command: Extract<PreviewCommand, { type: 'PublishPreview' }>, state: SiteState): SiteEvent[] {
  assertPreviewName(command.name, command.address.slug);
  const siteId = liveSite(state, command.address);
  const existing = findPreview(state.previews, command.name);
  const meta = mergePreviewMeta(existing?.meta, command.meta);
  const sameFiles = existing?.revision.manifest === command.content.manifest;
  // The same files and description again (a re-run CI job): nothing is recorded (spec §14, §4).
  if (existing && sameFiles && samePreviewMeta(meta, existing.meta)) return [];
  if (!existing && (state.previews?.length ?? 0) >= command.maxPreviews) {
    throw new ConflictError(`site ${fullPath(command.address)} has ${command.maxPreviews} previews already (SITES_MAX_PREVIEWS_PER_SITE): remove one first`);
  }
  const revision: RevisionInfo = sameFiles ? existing!.revision : { ...command.content, id: nextRevisionId(command.nowNanos, state.latestRevisionId) };
  return [
    {
      type: 'PreviewPublished',
      data: { siteId, name: command.name, created: !existing, revision, meta, expiresAt: command.expiresAt, ...(command.pages ? { pages: command.pages } : {}), ...command.changes },
    },
  ];
}

/** `PreviewExpired` for every preview whose expiry is at or before `now`. */
export function expiredPreviews(state: SiteState, now: string): SiteEvent[] {
  if (state.siteId === undefined) return [];
  const nowMs = Date.parse(now);
  return (state.previews ?? []).filter((p) => Date.parse(p.expiresAt) <= nowMs).map((p) => ({ type: 'PreviewExpired', data: gone(state.siteId!, p) }));
}

/** A preview that goes, with what garbage collection needs of its revision. */
function gone(siteId: number, p: PreviewInfo): PreviewGone {
  return { siteId, name: p.name, revisionId: p.revision.id, manifest: p.revision.manifest, ...(p.revision.favicon ? { favicon: p.revision.favicon.hash } : {}) };
}

import { NotFoundError, ValidationError } from '../errors.ts';
import type { Actor, Recorded, RevisionInfo, SiteEvent } from '../events.ts';
import { authorize, isAdmin, type Identity } from '../auth.ts';
import { fullPath, type SiteAddress } from '../paths.ts';
import { isRevisionId } from '../revision-id.ts';
import { decideSite, type SiteCommand } from '../site/decide.ts';
import { parseMetaFields, type MetaPatch } from '../site/meta.ts';
import { evolveSite, foldSite } from '../site/state.ts';
import { siteStream } from '../streams.ts';
import type { SiteDoc } from '../../projections/documents.ts';
import { runCommand } from './append.ts';
import type { CommandDeps } from './deps.ts';
import { collectDropped } from './gc.ts';

/** Runs one lifecycle command on a site stream and returns the site as the read model now shows it. */
async function runSiteCommand(deps: CommandDeps, actor: Actor, address: SiteAddress, command: SiteCommand): Promise<{ site?: SiteDoc; events: SiteEvent[] }> {
  const { result } = await runCommand(
    deps,
    siteStream(address),
    actor,
    (events) => foldSite(events as Recorded<SiteEvent>[]),
    (state) => {
      const events = decideSite(command, state);
      return { events, result: () => events };
    },
    (state, events) => events.reduce((s, e) => evolveSite(s, e as Recorded<SiteEvent>), state),
  );
  return { site: await deps.readModel.getSite(fullPath(address)), events: result };
}

export async function unpublishSite(deps: CommandDeps, identity: Identity, address: SiteAddress): Promise<void> {
  authorize(identity, 'unpublish', address);
  await runSiteCommand(deps, identity.actor, address, { type: 'UnpublishSite', address });
}

/** Restore needs `publish`: bringing content back online is publishing it (spec §4). */
export async function restoreSite(deps: CommandDeps, identity: Identity, address: SiteAddress): Promise<SiteDoc> {
  authorize(identity, 'publish', address);
  const { site } = await runSiteCommand(deps, identity.actor, address, { type: 'RestoreSite', address });
  return site!;
}

export async function purgeSite(deps: CommandDeps, identity: Identity | { actor: Actor; system: true }, address: SiteAddress): Promise<void> {
  if (!('system' in identity)) authorize(identity, 'purge', address);
  const { events } = await runSiteCommand(deps, identity.actor, address, { type: 'PurgeSite', address });
  const purged = events.find((e) => e.type === 'SitePurged');
  if (purged?.type === 'SitePurged') {
    await collectDropped(deps, purged.data.revisions.map((r) => ({ manifest: r.manifest, ...(r.favicon ? { favicon: r.favicon } : {}) })));
  }
}

export function parsePatch(body: unknown): MetaPatch {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ValidationError('the body must be a JSON object');
  const allowed = new Set(['title', 'description', 'date', 'tags', 'repo', 'preview', 'hidden']);
  for (const key of Object.keys(body)) {
    if (!allowed.has(key)) throw new ValidationError(`unknown field ${JSON.stringify(key)}`);
  }
  return parseMetaFields(body as Record<string, unknown>, true);
}

export async function patchSite(deps: CommandDeps, identity: Identity, address: SiteAddress, body: unknown): Promise<SiteDoc> {
  authorize(identity, 'patch', address);
  const patch = parsePatch(body);
  const { site } = await runSiteCommand(deps, identity.actor, address, { type: 'PatchSite', address, patch });
  return site!;
}

export function parseRollbackBody(body: unknown): string | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body !== 'object' || Array.isArray(body)) throw new ValidationError('the body must be a JSON object');
  const revision = (body as Record<string, unknown>).revision;
  if (revision === undefined || revision === null) return undefined;
  if (typeof revision !== 'string' || (revision !== 'current' && !isRevisionId(revision))) {
    throw new ValidationError('revision must be a revision id (YYYYMMDDTHHMMSS.nnnnnnnnnZ) or "current"');
  }
  return revision;
}

export async function rollbackSite(deps: CommandDeps, identity: Identity, address: SiteAddress, body: unknown): Promise<SiteDoc> {
  authorize(identity, 'rollback', address);
  const revision = parseRollbackBody(body);
  const { site } = await runSiteCommand(deps, identity.actor, address, { type: 'RollbackSite', address, revision, versioning: deps.versioning });
  return site!;
}

/**
 * A live site as a reader may see it: hidden sites are admin-only and answer 404
 * to everyone else, exactly like a missing one.
 */
export async function visibleSite(deps: Pick<CommandDeps, 'readModel'>, identity: Identity, address: SiteAddress): Promise<SiteDoc> {
  const site = await deps.readModel.getSite(fullPath(address));
  if (!site || site.status !== 'live' || (site.meta.hidden && !isAdmin(identity))) {
    throw new NotFoundError(`no site ${fullPath(address)}`);
  }
  return site;
}

/** Live first, then archived, most recently archived first. */
export function revisionsOf(site: SiteDoc): { info: RevisionInfo; current: boolean }[] {
  return [{ info: site.live, current: true }, ...site.archived.filter((r) => r.id !== site.live.id).map((info) => ({ info, current: false }))];
}

/** Resolves `current` or an id to a retained revision of the site. */
export function findRevision(site: SiteDoc, rev: string): RevisionInfo {
  if (rev === 'current' || rev === site.live.id) return site.live;
  const found = site.archived.find((r) => r.id === rev);
  if (!found) throw new NotFoundError(`site ${site.path} has no revision ${rev}`);
  return found;
}

/** Quarantined sites older than the TTL are purged by this job, acting as the system. */
export async function purgeExpired(deps: CommandDeps, ttlMs: number): Promise<string[]> {
  const cutoff = deps.now().getTime() - ttlMs;
  const purged: string[] = [];
  for (const site of await deps.readModel.listQuarantined()) {
    if (!site.deletedAt || Date.parse(site.deletedAt) > cutoff) continue;
    try {
      await purgeSite(deps, { actor: { kind: 'system', name: 'quarantine-ttl' }, system: true }, { group: site.group, slug: site.slug });
      purged.push(site.path);
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err; // restored or purged meanwhile
    }
  }
  return purged;
}

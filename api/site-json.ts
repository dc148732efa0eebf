import type { RevisionInfo } from '../domain/events.ts';
import { revisionTime } from '../domain/revision-id.ts';
import type { KeyDoc, SiteDoc } from '../projections/documents.ts';
import type { ApiContext } from './context.ts';
import type { APIKey } from './schemas/key.ts';
import type { Revision } from './schemas/revision.ts';
import type { Site } from './schemas/site.ts';

/** The API `Site` object (seed table + spec §3), as its schema defines it: absent optional fields are omitted. */
export type SiteJson = Site;

export function siteJson(api: Pick<ApiContext, 'siteUrl'>, doc: SiteDoc): SiteJson {
  const m = doc.meta;
  return {
    id: doc.siteId,
    group: doc.group,
    slug: doc.slug,
    title: m.title,
    description: m.description ?? '',
    ...(m.date !== undefined ? { date: m.date } : {}),
    tags: [...(m.tags ?? [])],
    ...(m.repo !== undefined ? { repo: m.repo } : {}),
    ...(m.preview !== undefined ? { preview: m.preview } : {}),
    hidden: m.hidden,
    size: doc.live.size,
    ...(doc.live.favicon ? { has_favicon: true } : {}),
    created_at: doc.createdAt,
    updated_at: doc.updatedAt,
    ...(doc.deletedAt ? { deleted_at: doc.deletedAt } : {}),
    url: api.siteUrl({ group: doc.group, slug: doc.slug }),
  };
}

export type RevisionJson = Revision;

export function revisionJson(rev: RevisionInfo, current: boolean): RevisionJson {
  return { id: rev.id, current, created_at: revisionTime(rev.id), size: rev.size, files: rev.files };
}

export function keyJson(key: KeyDoc): APIKey {
  return {
    id: key.id,
    name: key.name,
    admin: key.admin,
    grants: key.grants.map((g) => ({ kind: g.kind, target: g.target, permissions: [...g.permissions] })),
    created_at: key.createdAt,
    ...(key.expiresAt ? { expires_at: key.expiresAt } : {}),
    ...(key.lastUsedAt ? { last_used_at: key.lastUsedAt } : {}),
  };
}

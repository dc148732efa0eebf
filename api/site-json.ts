import type { RevisionInfo } from '../domain/events.ts';
import { revisionTime } from '../domain/revision-id.ts';
import type { KeyDoc, SiteDoc } from '../projections/documents.ts';
import type { ApiContext } from './context.ts';

/** The API `Site` object (seed table + spec §3): absent optional fields are omitted. */
export type SiteJson = {
  id: number;
  group: string;
  slug: string;
  title: string;
  /** Always present (`""` when unset): existing portals and scripts read it unconditionally. */
  description: string;
  date?: string;
  /** Always present (`[]` when unset), for the same reason. */
  tags: string[];
  repo?: string;
  preview?: string;
  hidden: boolean;
  size: number;
  has_favicon?: boolean;
  created_at: string;
  updated_at: string;
  deleted_at?: string;
  url: string;
};

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

export type RevisionJson = { id: string; current: boolean; created_at: string; size: number; files: number };

export function revisionJson(rev: RevisionInfo, current: boolean): RevisionJson {
  return { id: rev.id, current, created_at: revisionTime(rev.id), size: rev.size, files: rev.files };
}

export function keyJson(key: KeyDoc) {
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

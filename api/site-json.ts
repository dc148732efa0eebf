import { isAdmin, type Identity } from '../domain/auth.ts';
import type { RevisionInfo } from '../domain/events.ts';
import { revisionTime } from '../domain/revision-id.ts';
import type { KeyDoc, SiteDoc } from '../projections/documents.ts';
import type { SiteListResult } from '../projections/read-model.ts';
import { buildTree, type TreeNode } from '../projections/site-list.ts';
import type { ApiContext } from './context.ts';
import type { APIKey } from './schemas/key.ts';
import type { Revision } from './schemas/revision.ts';
import type { Site } from './schemas/site.ts';

/** The API `Site` object (seed table + spec §3), as its schema defines it: absent optional fields are omitted. */
export type SiteJson = Site;

/**
 * `updated_by` names admin keys and users: like the audit history (`GET …/events`), only
 * admins see it. Everyone else (publish keys, viewers, MCP connections) gets the time alone.
 */
type Audience = 'admin' | 'member';
const audienceOf = (reader: Identity): Audience => (isAdmin(reader) ? 'admin' : 'member');

/** The `Site` as `reader` may see it. */
export function siteJson(api: Pick<ApiContext, 'siteUrl'>, doc: SiteDoc, reader: Identity): SiteJson {
  return siteJsonFor(api, doc, audienceOf(reader));
}

function siteJsonFor(api: Pick<ApiContext, 'siteUrl'>, doc: SiteDoc, audience: Audience): SiteJson {
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
    ...(doc.updatedBy && audience === 'admin' ? { updated_by: doc.updatedBy } : {}),
    ...(doc.deletedAt ? { deleted_at: doc.deletedAt } : {}),
    url: api.siteUrl({ group: doc.group, slug: doc.slug }),
  };
}

/**
 * Each site document's `Site` as JSON bytes, by document object. A listing serializes every
 * matching site (the tree holds all of them); the SQLite read model hands out the same
 * object for a document until its stream moves on, so after a write a listing serializes
 * only what changed. Documents are never changed in place (readonly, replaced per
 * revision). The bytes also hold the site's URL, which the configuration (scheme, base
 * domain, public port) shapes around the site's own labels: each entry remembers the URL
 * of a fixed probe site made alongside it, and is remade when that differs.
 */
const siteBytes: Record<Audience, WeakMap<SiteDoc, { readonly probe: string; readonly bytes: Buffer }>> = { admin: new WeakMap(), member: new WeakMap() };
const PROBE = { group: '', slug: 'probe' } as const;

/** What every site URL depends on besides the site itself (see `siteBytes`). */
export const siteUrlProbe = (api: Pick<ApiContext, 'siteUrl'>): string => api.siteUrl(PROBE);

function siteJsonBytes(api: Pick<ApiContext, 'siteUrl'>, probe: string, doc: SiteDoc, audience: Audience): Buffer {
  const hit = siteBytes[audience].get(doc);
  if (hit && hit.probe === probe) return hit.bytes;
  const bytes = Buffer.from(JSON.stringify(siteJsonFor(api, doc, audience)));
  siteBytes[audience].set(doc, { probe, bytes });
  return bytes;
}

const COMMA = Buffer.from(',');
const SITES = Buffer.from('{"sites":[');
const TREE = Buffer.from('],"tree":');
const SITE = Buffer.from('"site":');
const GROUPS = Buffer.from('"groups":[');
const NODE_SITES = Buffer.from('],"sites":[');
const NODE_END = Buffer.from(']}');

/**
 * The body of `GET /api/sites` (`SitesResponse`): the page, the group tree of every match
 * and the count, with the bytes `JSON.stringify` gives that object, assembled from each
 * site's bytes in one copy (the page's sites are among the tree's). Joining 10,000 strings
 * and encoding the result took twice as long as the tree itself.
 */
export function siteListBody(api: Pick<ApiContext, 'siteUrl'>, result: SiteListResult, reader: Identity): Buffer {
  const probe = siteUrlProbe(api);
  const audience = audienceOf(reader);
  const json = (doc: SiteDoc) => siteJsonBytes(api, probe, doc, audience);
  const parts: Buffer[] = [SITES];
  list(parts, result.page.map(json));
  parts.push(TREE);
  tree(parts, buildTree(result.all, json));
  parts.push(Buffer.from(`,"count":${result.count}}`));
  return Buffer.concat(parts);
}

function list(parts: Buffer[], items: readonly Buffer[]): void {
  items.forEach((item, i) => (i === 0 ? parts.push(item) : parts.push(COMMA, item)));
}

function tree(parts: Buffer[], node: TreeNode<Buffer>): void {
  parts.push(Buffer.from(`{"name":${JSON.stringify(node.name)},"path":${JSON.stringify(node.path)},`));
  if (node.site) parts.push(SITE, node.site, COMMA);
  parts.push(GROUPS);
  node.groups.forEach((group, i) => {
    if (i > 0) parts.push(COMMA);
    tree(parts, group);
  });
  parts.push(NODE_SITES);
  list(parts, node.sites);
  parts.push(NODE_END);
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
    ...(key.revokedAt ? { revoked_at: key.revokedAt } : {}),
    ...(key.revokedBy ? { revoked_by: key.revokedBy } : {}),
  };
}

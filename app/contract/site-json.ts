import type { Identity } from '../../domain/auth.ts';
import type { RevisionInfo } from '../../domain/events.ts';
import type { SiteAddress } from '../../domain/paths.ts';
import { revisionTime } from '../../domain/revision-id.ts';
import type { ConnectionDoc, KeyDoc, SiteDoc } from '../../projections/documents.ts';
import type { SiteListResult } from '../../projections/queries.ts';
import { buildTree, type TreeNode } from '../../projections/site-list.ts';
import type { Connection } from './connection.ts';
import type { APIKey } from './key.ts';
import type { Revision } from './revision.ts';
import type { Site } from './site.ts';

/**
 * The answers' shapes, made from the documents: `Site`, `Revision`, `APIKey`, `Connection`,
 * each as its schema (app/contract/) defines it, absent optional fields omitted.
 */

const COMMA = Buffer.from(',');
const SITES = Buffer.from('{"sites":[');
const TREE = Buffer.from('],"tree":');
const SITE = Buffer.from('"site":');
const GROUPS = Buffer.from('"groups":[');
const NODE_SITES = Buffer.from('],"sites":[');
const NODE_END = Buffer.from(']}');
const PROBE = { group: '', slug: 'probe' } as const;

/**
 * `updated_by` names admin keys and users: like the audit history (`GET …/events`), only
 * admins see it. Everyone else (publish keys, viewers, MCP connections) gets the time alone.
 */
type Audience = 'admin' | 'member';
const audienceOf = (reader: Identity): Audience => (reader.principal.kind === 'admin' ? 'admin' : 'member');

/**
 * `Site` objects of one service instance, with each document's JSON bytes kept for
 * listings. A listing serializes every matching site (the tree holds all of them); the SQLite
 * read model hands out the same object for a document until its stream moves on, so after a
 * write a listing serializes only what changed. Documents are never changed in place
 * (readonly, replaced per revision), so the bytes are keyed by the document object, weakly.
 * The bytes also hold the site's URL, which the instance's configuration (scheme, base
 * domain, public port) shapes around the site's own labels: each entry remembers the URL of
 * a fixed probe site made alongside it, and is remade when that differs. One per instance:
 * two instances in one process with other settings never see each other's bytes.
 */
export class SiteShapes {
  private readonly bytes: Record<Audience, WeakMap<SiteDoc, { readonly probe: string; readonly bytes: Buffer }>> = { admin: new WeakMap(), member: new WeakMap() };

  constructor(private readonly siteUrl: (address: SiteAddress) => string) {}

  /** What every site URL depends on besides the site itself (part of a listing's cache key). */
  probe(): string {
    return this.siteUrl(PROBE);
  }

  /** The API `Site` (seed table + spec §3), as `reader` may see it. */
  site(doc: SiteDoc, reader: Identity): Site {
    return this.siteFor(doc, audienceOf(reader));
  }

  private siteFor(doc: SiteDoc, audience: Audience): Site {
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
      url: this.siteUrl({ group: doc.group, slug: doc.slug }),
      previews: doc.previews?.length ?? 0,
      domains: [...(doc.domains ?? [])],
    };
  }

  /**
   * The body of `GET /api/sites` (`SitesResponse`): the page, the group tree of every match
   * and the count, with the bytes `JSON.stringify` gives that object, assembled from each
   * site's bytes in one copy (the page's sites are among the tree's). Joining 10,000 strings
   * and encoding the result took twice as long as the tree itself.
   */
  listBody(result: SiteListResult, reader: Identity): Buffer {
    const probe = this.probe();
    const audience = audienceOf(reader);
    const json = (doc: SiteDoc) => this.siteBytes(probe, doc, audience);
    const parts: Buffer[] = [SITES];
    list(parts, result.page.map(json));
    parts.push(TREE);
    tree(parts, buildTree(result.all, json));
    parts.push(Buffer.from(`,"count":${result.count}}`));
    return Buffer.concat(parts);
  }

  /** The start of an unfiltered listing's body: its page, up to the tree (`{"sites":[…],"tree":`). */
  pageBytes(page: readonly SiteDoc[], reader: Identity): Buffer {
    const probe = this.probe();
    const audience = audienceOf(reader);
    const parts: Buffer[] = [SITES];
    list(parts, page.map((doc) => this.siteBytes(probe, doc, audience)));
    parts.push(TREE);
    return Buffer.concat(parts);
  }

  /**
   * A site's JSON bytes as an admin (or anyone else) sees them, not kept: for the listing's
   * tree, which keeps them compressed (app/queries/listing-tree.ts) and would otherwise hold
   * every site twice.
   */
  json(doc: SiteDoc, admin: boolean): Buffer {
    return Buffer.from(JSON.stringify(this.siteFor(doc, admin ? 'admin' : 'member')));
  }

  private siteBytes(probe: string, doc: SiteDoc, audience: Audience): Buffer {
    const hit = this.bytes[audience].get(doc);
    if (hit && hit.probe === probe) return hit.bytes;
    const bytes = Buffer.from(JSON.stringify(this.siteFor(doc, audience)));
    this.bytes[audience].set(doc, { probe, bytes });
    return bytes;
  }
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

/** `Revision` (spec §3, §14); `permalink` makes its URL from its number (absent only on documents projected before numbers). */
export function revisionJson(rev: RevisionInfo, current: boolean, permalink?: (number: number) => string): Revision {
  const out: Revision = { id: rev.id, current, created_at: revisionTime(rev.id), size: rev.size, files: rev.files };
  if (rev.number !== undefined) {
    out.number = rev.number;
    if (permalink) out.url = permalink(rev.number);
  }
  return out;
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

/** The API `Connection` object (spec §13): never any token or hash. */
export function connectionJson(c: ConnectionDoc): Connection {
  return {
    id: c.id,
    client_id: c.clientId,
    client_name: c.clientName,
    user: c.user,
    grants: c.grants.map((g) => ({ kind: g.kind, target: g.target, permissions: [...g.permissions] })),
    created_at: c.createdAt,
    ...(c.lastUsedAt ? { last_used_at: c.lastUsedAt } : {}),
    // Before its code is exchanged a connection has no refresh token: the code's expiry bounds it.
    expires_at: c.refreshExpiresAt ?? c.code?.expiresAt ?? c.createdAt,
    ...(c.revoked && c.revokedAt ? { revoked_at: c.revokedAt } : {}),
    ...(c.revoked && c.revokedReason ? { revoked_reason: c.revokedReason } : {}),
  };
}

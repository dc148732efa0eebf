import { z } from 'zod';
import { faviconType } from '../../domain/favicon.ts';
import { RevisionDiff, ServiceStorage } from '../schemas/audit.ts';
import { ConnectionIdParam, ConnectionsQuery, ConnectionsResponse } from '../schemas/connection.ts';
import { EventsResponse } from '../schemas/events.ts';
import { FileNode } from '../schemas/file-tree.ts';
import { DeployCreated, DeployIdParam, DeployRequest, DigestParam } from '../schemas/deploy.ts';
import { CreatedAPIKey, CreateKeyBody, KeysResponse } from '../schemas/key.ts';
import { Me } from '../schemas/me.ts';
import { FileQuery, KeyIdParam, RevisionParam } from '../schemas/params.ts';
import { SitePatch } from '../schemas/patch.ts';
import { PublishForm, PublishResult } from '../schemas/publish.ts';
import { RevisionsResponse } from '../schemas/revision.ts';
import { RollbackBody } from '../schemas/rollback.ts';
import { SiteQueryParams } from '../schemas/site-query.ts';
import { Site, SitesResponse, TrashResponse } from '../schemas/site.ts';

/**
 * The operation registry: every `/ingest` and `/api` route, described with the schemas the
 * route validates with and answers. `api/openapi/document.ts` turns it into OpenAPI 3.1;
 * `test/http/openapi.test.ts` checks that every route the routers register is here.
 *
 * In `path`, `{site}` stands for a site path of 1–3 labels; the document spells it once per
 * depth: `{slug}`, `{group}/{slug}`, `{group}/{subgroup}/{slug}`.
 */
export type Operation = {
  readonly id: string;
  readonly method: 'get' | 'post' | 'patch' | 'put' | 'delete';
  readonly path: string;
  readonly tag: Tag;
  readonly summary: string;
  readonly description?: string;
  /** none; key: API keys only (ingest); user: a forward-auth user or any key; admin: an admin of either kind. */
  readonly auth: 'none' | 'key' | 'user' | 'admin';
  /** Path parameters other than `{site}`. */
  readonly params?: Readonly<Record<string, z.ZodType>>;
  readonly query?: z.ZodObject;
  readonly body?: Body;
  readonly ok: { readonly status: 200 | 201 | 204; readonly reply: Reply };
  /** Error statuses this operation can answer (each with the `{error, code}` body). */
  readonly errors: readonly ErrorStatus[];
};

export type Tag = 'ingest' | 'sites' | 'revisions' | 'trash' | 'keys' | 'connections' | 'meta';
export type ErrorStatus = 400 | 401 | 403 | 404 | 408 | 409 | 413 | 415 | 507;

export type Body =
  | { readonly kind: 'json'; readonly schema: z.ZodType; readonly required: boolean; readonly description: string }
  | { readonly kind: 'multipart'; readonly schema: z.ZodType; readonly encoding: Readonly<Record<string, string>>; readonly description: string }
  | { readonly kind: 'binary'; readonly types: readonly string[]; readonly description: string };

export type Header = { readonly description: string; readonly schema: z.ZodType };
export type Reply =
  | { readonly kind: 'json'; readonly schema: z.ZodType; readonly description: string }
  | { readonly kind: 'binary'; readonly types: readonly string[]; readonly description: string; readonly headers?: Readonly<Record<string, Header>> }
  | { readonly kind: 'empty'; readonly description: string };

/** The error statuses and what each means here (spec §2). */
export const ERROR_STATUSES: Readonly<Record<ErrorStatus, { readonly name: string; readonly description: string }>> = {
  400: { name: 'Invalid', description: 'invalid: a bad path, label, parameter, field or archive, or a missing index.html' },
  401: { name: 'Unauthenticated', description: 'unauthenticated: no credential, or an unknown, expired or revoked key' },
  403: { name: 'Forbidden', description: 'forbidden: authenticated, but lacking the capability on that target or not an admin; or a cross-origin write by a signed-in user' },
  404: { name: 'NotFound', description: 'not_found: no such site, revision or key (also a hidden site asked for by a non-admin, and a site in the wrong state)' },
  408: { name: 'RequestTimeout', description: 'invalid: the upload arrived slower than the slow-client guard allows' },
  409: { name: 'Conflict', description: 'conflict: rollback with versioning off or nothing archived, or a write that lost a concurrency race twice' },
  413: { name: 'TooLarge', description: 'too_large: body, extracted bytes or entry count over the limits' },
  415: { name: 'UnsupportedMediaType', description: 'unsupported_media_type: the body is not of the expected type' },
  507: { name: 'InsufficientStorage', description: 'insufficient_storage: the file store is out of space; nothing was changed' },
};

/** The favicon types served (spec §2), as the domain's allow-list normalises them. */
const FAVICON_TYPES = ['image/png', 'image/x-icon', 'image/gif', 'image/jpeg', 'image/webp', 'image/svg+xml'].filter((t) => faviconType(t) === t);

const ATTACHMENT: Header = { description: 'attachment; filename="…"', schema: z.string() };
const INERT: Readonly<Record<string, Header>> = {
  'Content-Security-Policy': { description: "default-src 'none'; style-src 'unsafe-inline'; sandbox", schema: z.string() },
  'X-Content-Type-Options': { description: 'nosniff', schema: z.literal('nosniff') },
};

const json = (schema: z.ZodType, description: string): Reply => ({ kind: 'json', schema, description });
const empty = (description: string): Reply => ({ kind: 'empty', description });
const jsonBody = (schema: z.ZodType, description: string, required = true): Body => ({ kind: 'json', schema, required, description });

const PUBLISH_BODY: Body = {
  kind: 'multipart',
  schema: PublishForm,
  encoding: { meta: 'application/json', bundle: 'application/gzip, application/zip, application/octet-stream', index: 'text/html' },
  description:
    'A `meta` JSON part and exactly one of `bundle` (a .tar.gz or .zip, detected from magic bytes) or `index` (one HTML document). ' +
    'Entries escaping the root, links, devices, duplicates and names with NUL or backslashes are refused (400); limits hold while streaming (413).',
};
const PUBLISH_ERRORS: readonly ErrorStatus[] = [400, 401, 403, 408, 409, 413, 415, 507];
const ROLLBACK_DESCRIPTION =
  'Versioning must be on (else 409; also 409 when nothing is archived). Without a revision the most recently archived one becomes live; ' +
  'the live revision moves to the front of the archive, so two rollbacks without a body return to where you started.';

const ingest: Operation[] = [
  {
    id: 'ingestPublish',
    method: 'post',
    path: '/ingest/sites',
    tag: 'ingest',
    auth: 'key',
    summary: 'Publish a site (capability publish)',
    description: 'Creates or replaces the site named by meta.group and meta.slug; the switch to the new content is atomic.',
    body: PUBLISH_BODY,
    ok: { status: 200, reply: json(PublishResult, 'the site as published') },
    errors: PUBLISH_ERRORS,
  },
  {
    id: 'ingestPatchSite',
    method: 'patch',
    path: '/ingest/sites/{site}',
    tag: 'ingest',
    auth: 'key',
    summary: 'Edit a site’s metadata (capability patch)',
    body: jsonBody(SitePatch, 'the fields to change'),
    ok: { status: 200, reply: json(Site, 'the site after the change') },
    errors: [400, 401, 403, 404, 409, 413, 415],
  },
  {
    id: 'ingestUnpublishSite',
    method: 'delete',
    path: '/ingest/sites/{site}',
    tag: 'ingest',
    auth: 'key',
    summary: 'Unpublish a site (capability unpublish)',
    description: 'Takes the site offline at once and moves it to the trash, where it is kept for SITES_DELETED_SITE_TTL.',
    ok: { status: 204, reply: empty('unpublished') },
    errors: [400, 401, 403, 404, 409],
  },
  {
    id: 'ingestListRevisions',
    method: 'get',
    path: '/ingest/sites/{site}/revisions',
    tag: 'ingest',
    auth: 'key',
    summary: 'List a site’s revisions (capability rollback)',
    ok: { status: 200, reply: json(RevisionsResponse, 'live first, then archived, most recently archived first') },
    errors: [400, 401, 403, 404],
  },
  {
    id: 'ingestRollback',
    method: 'post',
    path: '/ingest/sites/{site}/rollback',
    tag: 'ingest',
    auth: 'key',
    summary: 'Roll a site back (capability rollback)',
    description: ROLLBACK_DESCRIPTION,
    body: jsonBody(RollbackBody, 'optional: {"revision": id}', false),
    ok: { status: 200, reply: json(Site, 'the site with the chosen revision live') },
    errors: [400, 401, 403, 404, 409, 413, 415],
  },
  {
    id: 'ingestRestore',
    method: 'post',
    path: '/ingest/sites/{site}/restore',
    tag: 'ingest',
    auth: 'key',
    summary: 'Restore a site from the trash (capability publish)',
    ok: { status: 200, reply: json(Site, 'the site, back exactly as it was') },
    errors: [400, 401, 403, 404, 409],
  },
  {
    id: 'ingestPurge',
    method: 'post',
    path: '/ingest/sites/{site}/purge',
    tag: 'ingest',
    auth: 'key',
    summary: 'Purge a site in the trash for good (capability purge)',
    description: 'Only a quarantined site can be purged (a live one → 404); every file and revision is destroyed.',
    ok: { status: 204, reply: empty('purged') },
    errors: [400, 401, 403, 404, 409],
  },
];

/** Incremental deploys (spec §10): the manifest first, then only what the site lacks, then the publish. */
const deploys: Operation[] = [
  {
    id: 'ingestCreateDeploy',
    method: 'post',
    path: '/ingest/deploys',
    tag: 'ingest',
    auth: 'key',
    summary: 'Start an incremental deploy (capability publish)',
    description:
      'Sends the site’s manifest of digests; the answer lists the digests no revision of this site (live, archived or in the trash) holds, ' +
      'which must be uploaded before the publish. A path that breaks the archive rules or a digest that is not 64 lowercase hex → 400 naming it; ' +
      'more than SITES_MAX_EXTRACT_ENTRIES paths → 413. The deploy can be used by the key that created it or an admin key, for one hour.',
    body: jsonBody(DeployRequest, 'the publish meta and the files by digest (may be sent with Content-Encoding: gzip)'),
    ok: { status: 201, reply: json(DeployCreated, 'the deploy and what to upload') },
    errors: [400, 401, 403, 413, 415],
  },
  {
    id: 'ingestUploadDeployFile',
    method: 'put',
    path: '/ingest/deploys/{id}/files/{sha256}',
    tag: 'ingest',
    auth: 'key',
    summary: 'Upload one content of a deploy (capability publish)',
    description:
      'The body is stored only if its SHA-256 is the digest in the URL (else 400, nothing stored). A digest the manifest does not list → 404; ' +
      'a body over SITES_MAX_UPLOAD_BYTES, or the deploy’s uploads over SITES_MAX_EXTRACT_BYTES → 413; a published deploy → 409. ' +
      '204 also when the store had the content already.',
    params: { id: DeployIdParam, sha256: DigestParam },
    body: { kind: 'binary', types: ['application/octet-stream'], description: 'the file’s raw bytes' },
    ok: { status: 204, reply: empty('stored') },
    errors: [400, 401, 403, 404, 408, 409, 413, 507],
  },
  {
    id: 'ingestPublishDeploy',
    method: 'post',
    path: '/ingest/deploys/{id}/publish',
    tag: 'ingest',
    auth: 'key',
    summary: 'Publish a deploy (capability publish)',
    description:
      'Publishes the deploy’s files exactly as POST /ingest/sites would publish them (same events, revision, atomic switch, favicon). ' +
      'Digests still missing → 409 with "missing": [digests]; an already published deploy → 409; an unknown or expired deploy, ' +
      'or one created by another key → 404.',
    params: { id: DeployIdParam },
    ok: { status: 200, reply: json(PublishResult, 'the site as published') },
    errors: [400, 401, 403, 404, 409, 413, 507],
  },
];

const management: Operation[] = [
  {
    id: 'getOpenApi',
    method: 'get',
    path: '/api/openapi.json',
    tag: 'meta',
    auth: 'none',
    summary: 'This document',
    description: 'Generated from the schemas the routes validate with.',
    ok: { status: 200, reply: json(z.looseObject({ openapi: z.string(), info: z.looseObject({}), paths: z.record(z.string(), z.unknown()) }).meta({ description: 'An OpenAPI 3.1 document.' }), 'the OpenAPI 3.1 document') },
    errors: [],
  },
  {
    id: 'getMe',
    method: 'get',
    path: '/api/me',
    tag: 'meta',
    auth: 'user',
    summary: 'Who is asking, and what this instance offers',
    ok: { status: 200, reply: json(Me, 'the caller and the instance') },
    errors: [401],
  },
  {
    id: 'listSites',
    method: 'get',
    path: '/api/sites',
    tag: 'sites',
    auth: 'user',
    summary: 'List and search live sites',
    description: '`tree` holds every matching site (not only the page) as the group tree. Quarantined sites never appear here.',
    query: SiteQueryParams,
    ok: { status: 200, reply: json(SitesResponse, 'the page, the tree and the count') },
    errors: [400, 401],
  },
  {
    id: 'publishSite',
    method: 'post',
    path: '/api/sites',
    tag: 'sites',
    auth: 'admin',
    summary: 'Publish a site (the portal’s upload)',
    body: PUBLISH_BODY,
    ok: { status: 200, reply: json(PublishResult, 'the site as published') },
    errors: PUBLISH_ERRORS,
  },
  {
    id: 'listTrash',
    method: 'get',
    path: '/api/sites/deleted',
    tag: 'trash',
    auth: 'admin',
    summary: 'List quarantined sites',
    ok: { status: 200, reply: json(TrashResponse, 'the trash') },
    errors: [401, 403],
  },
  {
    id: 'restoreSite',
    method: 'post',
    path: '/api/sites/deleted/{site}',
    tag: 'trash',
    auth: 'admin',
    summary: 'Restore a quarantined site',
    ok: { status: 200, reply: json(Site, 'the site, back exactly as it was') },
    errors: [400, 401, 403, 404, 409],
  },
  {
    id: 'purgeSite',
    method: 'delete',
    path: '/api/sites/deleted/{site}',
    tag: 'trash',
    auth: 'admin',
    summary: 'Purge a quarantined site for good',
    ok: { status: 204, reply: empty('purged') },
    errors: [400, 401, 403, 404, 409],
  },
  {
    id: 'getFavicon',
    method: 'get',
    path: '/api/sites/{site}/favicon',
    tag: 'sites',
    auth: 'user',
    summary: 'The site’s favicon',
    ok: {
      status: 200,
      reply: {
        kind: 'binary',
        types: FAVICON_TYPES,
        description: 'the image bytes, of the type detected at publish time',
        headers: { 'Cache-Control': { description: 'public, max-age=3600', schema: z.string() }, ...INERT },
      },
    },
    errors: [400, 401, 404],
  },
  {
    id: 'listRevisions',
    method: 'get',
    path: '/api/sites/{site}/revisions',
    tag: 'revisions',
    auth: 'user',
    summary: 'List a site’s revisions',
    ok: { status: 200, reply: json(RevisionsResponse, 'live first, then archived, most recently archived first') },
    errors: [400, 401, 404],
  },
  {
    id: 'diffRevisions',
    method: 'get',
    path: '/api/sites/{site}/revisions/{a}/diff/{b}',
    tag: 'revisions',
    auth: 'user',
    summary: 'Compare two revisions',
    description: 'Files added, removed and changed from revision a to revision b, compared by content hash (spec §12). `current` names the live revision.',
    params: { a: RevisionParam, b: RevisionParam },
    ok: { status: 200, reply: json(RevisionDiff, 'the difference, each list sorted by path') },
    errors: [400, 401, 404],
  },
  {
    id: 'getRevisionFiles',
    method: 'get',
    path: '/api/sites/{site}/revisions/{rev}/files',
    tag: 'revisions',
    auth: 'user',
    summary: 'The file tree of a revision',
    params: { rev: RevisionParam },
    ok: { status: 200, reply: json(FileNode, 'the root directory') },
    errors: [400, 401, 404],
  },
  {
    id: 'getRevisionFile',
    method: 'get',
    path: '/api/sites/{site}/revisions/{rev}/file',
    tag: 'revisions',
    auth: 'user',
    summary: 'Download one file of a revision',
    params: { rev: RevisionParam },
    query: FileQuery,
    ok: {
      status: 200,
      reply: { kind: 'binary', types: ['*/*'], description: 'the file’s bytes, with its stored type', headers: { 'Content-Disposition': ATTACHMENT, ...INERT } },
    },
    errors: [400, 401, 404],
  },
  {
    id: 'getRevisionArchive',
    method: 'get',
    path: '/api/sites/{site}/revisions/{rev}/archive',
    tag: 'revisions',
    auth: 'user',
    summary: 'Download a revision as a zip',
    params: { rev: RevisionParam },
    ok: {
      status: 200,
      reply: { kind: 'binary', types: ['application/zip'], description: 'the revision’s files, streamed', headers: { 'Content-Disposition': ATTACHMENT, ...INERT } },
    },
    errors: [400, 401, 404],
  },
  {
    id: 'listSiteEvents',
    method: 'get',
    path: '/api/sites/{site}/events',
    tag: 'sites',
    auth: 'admin',
    summary: 'The site’s audit history, oldest first',
    ok: { status: 200, reply: json(EventsResponse, 'the events of the site’s stream') },
    errors: [400, 401, 403, 404],
  },
  {
    id: 'rollbackSite',
    method: 'post',
    path: '/api/sites/{site}/rollback',
    tag: 'revisions',
    auth: 'admin',
    summary: 'Roll a site back',
    description: ROLLBACK_DESCRIPTION,
    body: jsonBody(RollbackBody, 'optional: {"revision": id}', false),
    ok: { status: 200, reply: json(Site, 'the site with the chosen revision live') },
    errors: [400, 401, 403, 404, 409, 413, 415],
  },
  {
    id: 'getSite',
    method: 'get',
    path: '/api/sites/{site}',
    tag: 'sites',
    auth: 'user',
    summary: 'One site',
    description: 'A hidden site is shown to admins only; to anyone else it answers 404, like a missing one.',
    ok: { status: 200, reply: json(Site, 'the site') },
    errors: [400, 401, 404],
  },
  {
    id: 'patchSite',
    method: 'patch',
    path: '/api/sites/{site}',
    tag: 'sites',
    auth: 'admin',
    summary: 'Edit a site’s metadata',
    body: jsonBody(SitePatch, 'the fields to change'),
    ok: { status: 200, reply: json(Site, 'the site after the change') },
    errors: [400, 401, 403, 404, 409, 413, 415],
  },
  {
    id: 'unpublishSite',
    method: 'delete',
    path: '/api/sites/{site}',
    tag: 'sites',
    auth: 'admin',
    summary: 'Unpublish a site (to the trash)',
    ok: { status: 204, reply: empty('unpublished') },
    errors: [400, 401, 403, 404, 409],
  },
  {
    id: 'listKeys',
    method: 'get',
    path: '/api/keys',
    tag: 'keys',
    auth: 'admin',
    summary: 'List API keys (never their tokens)',
    ok: { status: 200, reply: json(KeysResponse, 'the keys that are not revoked') },
    errors: [401, 403],
  },
  {
    id: 'createKey',
    method: 'post',
    path: '/api/keys',
    tag: 'keys',
    auth: 'admin',
    summary: 'Create an API key',
    description: 'The token is in this response and nowhere else. A grant target must be canonical (no empty label, trailing slash, upper case, more than 3 labels).',
    body: jsonBody(CreateKeyBody, 'the key to create'),
    ok: { status: 201, reply: json(CreatedAPIKey, 'the key, with its token') },
    errors: [400, 401, 403, 409, 413, 415],
  },
  {
    id: 'revokeKey',
    method: 'delete',
    path: '/api/keys/{id}',
    tag: 'keys',
    auth: 'admin',
    summary: 'Revoke an API key',
    description: 'The key stops working before this returns.',
    params: { id: KeyIdParam },
    ok: { status: 204, reply: empty('revoked') },
    errors: [400, 401, 403, 404, 409],
  },
  {
    id: 'listConnections',
    method: 'get',
    path: '/api/mcp/connections',
    tag: 'connections',
    auth: 'admin',
    summary: 'List MCP connections',
    query: ConnectionsQuery,
    ok: { status: 200, reply: json(ConnectionsResponse, 'active connections (with revoked=true, revoked ones too)') },
    errors: [400, 401, 403],
  },
  {
    id: 'revokeConnection',
    method: 'delete',
    path: '/api/mcp/connections/{id}',
    tag: 'connections',
    auth: 'admin',
    summary: 'Revoke an MCP connection',
    description: 'Its tokens stop working before this returns.',
    params: { id: ConnectionIdParam },
    ok: { status: 204, reply: empty('revoked') },
    errors: [400, 401, 403, 404, 409],
  },
  {
    id: 'getStorage',
    method: 'get',
    path: '/api/storage',
    tag: 'revisions',
    auth: 'admin',
    summary: 'What the retained revisions cost',
    description: 'Every retained revision of every site, their summed size against what the shared store holds for them (each distinct content once).',
    ok: { status: 200, reply: json(ServiceStorage, 'storage of the whole service') },
    errors: [401, 403],
  },
];

export const OPERATIONS: readonly Operation[] = [...ingest, ...deploys, ...management];

export const TAGS: Readonly<Record<Tag, string>> = {
  ingest: 'The ingest plane (API keys only): publish and manage sites from CI.',
  sites: 'Sites on the management plane (forward-auth users and keys).',
  revisions: 'Revisions: history, files, archives, rollback.',
  trash: 'Quarantined sites: restore or purge.',
  keys: 'API keys (admin).',
  connections: 'MCP connections (admin).',
  meta: 'The caller, the instance and this document.',
};

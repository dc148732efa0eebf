import { DeployCreated, DeployIdParam, DeployRequest, DigestParam } from '../../app/contract/deploy.ts';
import { SitePatch } from '../../app/contract/patch.ts';
import { DeployPublished } from '../../app/contract/preview.ts';
import { PublishResult } from '../../app/contract/publish.ts';
import { RevisionsResponse } from '../../app/contract/revision.ts';
import { RollbackBody } from '../../app/contract/rollback.ts';
import { Site } from '../../app/contract/site.ts';
import { empty, json, jsonBody, type Operation, PUBLISH_BODY, PUBLISH_ERRORS, ROLLBACK_DESCRIPTION } from './operation.ts';

/** The ingest plane (spec §4): API keys only. */
export const ingest: Operation[] = [
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
export const deploys: Operation[] = [
  {
    id: 'ingestCreateDeploy',
    method: 'post',
    path: '/ingest/deploys',
    tag: 'ingest',
    auth: 'key',
    summary: 'Start an incremental deploy (capability publish; preview for a preview deploy)',
    description:
      'Sends the site’s manifest of digests; the answer lists the digests no revision of this site (live, archived or in the trash) holds, ' +
      'which must be uploaded before the publish. A path that breaks the archive rules or a digest that is not 64 lowercase hex → 400 naming it; ' +
      'more than SITES_MAX_EXTRACT_ENTRIES paths → 413. The deploy can be used by the key that created it or an admin key, for one hour.',
    body: jsonBody(DeployRequest, 'the publish meta and the files by digest (may be sent with Content-Encoding: gzip)'),
    ok: { status: 201, reply: json(DeployCreated, 'the deploy and what to upload') },
    errors: [400, 401, 403, 413, 415, 507],
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
    ok: { status: 200, reply: json(DeployPublished, 'the site as published; for a deploy created with "preview", the PreviewResult') },
    errors: [400, 401, 403, 404, 409, 413, 507],
  },
];

/**
 * The same three calls on the management plane, for admins (a signed-in admin or an admin
 * key), as `POST /api/sites` is the ingest publish for the portal: the portal publishes a
 * dropped folder through them, uploading only what the site lacks.
 */
export const adminDeploys: Operation[] = deploys.map((op) => ({
  ...op,
  id: op.id.replace(/^ingest(\w)/, (_, c: string) => c.toLowerCase()),
  path: op.path.replace('/ingest/deploys', '/api/deploys'),
  tag: 'sites',
  auth: 'admin',
  summary: op.summary.replace(/ \(capability publish[^)]*\)/, ' (admin; the portal’s folder upload)'),
  description: `${op.description} On the management plane for admins; a deploy made here can be used by admins only.`,
}));

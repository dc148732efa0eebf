import { PreviewForm, PreviewNameParam, PreviewResult, PreviewsOrSite, PreviewsResponse } from '../../app/contract/preview.ts';
import { empty, json, type Operation } from './operation.ts';

const PREVIEW_RULES =
  'A preview is a named, expiring copy of a live site beside its live content, which it never touches, served at ' +
  'https://<name>--<slug>.<group>.<base>/ with X-Robots-Tag: noindex. The name is a label without "--", not of the form v<digits>, ' +
  'and <name>--<slug> fits in 63 characters (else 400). It expires SITES_PREVIEW_TTL after its last publish.';

/** Previews (spec §14): on the ingest plane with the `preview` capability (`publish` implies it), and read or removed on the management plane. */
export const previews: Operation[] = [
  {
    id: 'ingestPublishPreview',
    method: 'put',
    path: '/ingest/sites/{site}/previews/{name}',
    tag: 'ingest',
    auth: 'key',
    summary: 'Publish a preview of a live site (capability preview)',
    description:
      `${PREVIEW_RULES} The same archive rules, limits, _redirects/_headers and favicon detection as a publish; publishing it again replaces ` +
      'its content atomically; the same files and description again record nothing. The site must be live (404 otherwise); one preview more ' +
      'than SITES_MAX_PREVIEWS_PER_SITE → 409.',
    params: { name: PreviewNameParam },
    body: {
      kind: 'multipart',
      schema: PreviewForm,
      encoding: { meta: 'application/json', bundle: 'application/gzip, application/zip, application/octet-stream', index: 'text/html' },
      description: 'Exactly one of `bundle` (a .tar.gz or .zip) or `index` (one HTML document); an optional `meta` JSON part {title, description, repo} describes the preview.',
    },
    ok: { status: 200, reply: json(PreviewResult, 'the preview, its file counts against the live revision and the changed pages') },
    errors: [400, 401, 403, 404, 408, 409, 413, 415, 507],
  },
  {
    id: 'ingestListPreviews',
    method: 'get',
    path: '/ingest/sites/{site}/previews',
    tag: 'ingest',
    auth: 'key',
    summary: 'List a site’s previews (capability preview)',
    ok: { status: 200, reply: json(PreviewsResponse, 'the previews, by name') },
    errors: [400, 401, 403, 404],
  },
  {
    id: 'ingestRemovePreview',
    method: 'delete',
    path: '/ingest/sites/{site}/previews/{name}',
    tag: 'ingest',
    auth: 'key',
    summary: 'Remove a preview (capability preview)',
    description:
      'The preview goes offline at once; the files only it held are collected. An unknown preview or a site that is not live → 404. ' +
      'A one-label {site} makes this path also the site {name} of the group {site}/previews: a key that may unpublish that site, and not ' +
      'preview {site}, unpublishes it; a key that may do both unpublishes it when it exists.',
    params: { name: PreviewNameParam },
    ok: { status: 204, reply: empty('removed') },
    errors: [400, 401, 403, 404, 409],
  },
  {
    id: 'listPreviews',
    method: 'get',
    path: '/api/sites/{site}/previews',
    tag: 'sites',
    auth: 'user',
    summary: 'List a site’s previews',
    description:
      'Any signed-in user; a hidden site’s only for admins (404 otherwise). Previews never appear in the site list. ' +
      'When a site’s full path is {site}/previews (its slug is "previews"), this is that site, as it always was.',
    ok: { status: 200, reply: json(PreviewsOrSite, 'the previews, by name (or the site {site}/previews)') },
    errors: [400, 401, 404],
  },
  {
    id: 'removePreview',
    method: 'delete',
    path: '/api/sites/{site}/previews/{name}',
    tag: 'sites',
    auth: 'admin',
    summary: 'Remove a preview (admin)',
    description: 'When a site {site}/previews/{name} exists (a group whose last label is "previews"), this unpublishes that site, as it always did.',
    params: { name: PreviewNameParam },
    ok: { status: 204, reply: empty('removed') },
    errors: [400, 401, 403, 404, 409],
  },
];

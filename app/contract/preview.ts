import { z } from 'zod';
import { RevisionId, Timestamp } from './common.ts';
import { Actor } from './events.ts';
import { parseMeta } from './parse.ts';
import { PublishResult } from './publish.ts';
import { Site } from './site.ts';

/**
 * Previews (spec §14): the request and answer shapes of `PUT/GET/DELETE
 * /ingest/sites/{path}/previews/{name}`, `GET/DELETE /api/sites/{path}/previews…`, the
 * preview deploys and the MCP `publish_site` with `preview`.
 */

const text = (description: string) => z.string().max(2000).optional().meta({ description });

/** The `meta` part of a preview publish: all optional, what the preview is (usually the pull request). */
export const PreviewMetaInput = z
  .object({
    title: text('what the preview shows, e.g. the pull request title'),
    description: text('a longer description'),
    repo: text('a link to its source, e.g. the pull request URL'),
  })
  .meta({ description: 'Describes a preview; omitted fields keep their value when it is published again. Other fields (a site publish meta) are ignored.' });
export type PreviewMetaInput = z.output<typeof PreviewMetaInput>;

/** The `meta` of a preview publish as a request carries it: absent, a JSON object, or JSON text (a multipart field). */
export function readPreviewMeta(value: unknown): PreviewMetaInput {
  return value === undefined ? {} : parseMeta(PreviewMetaInput, value);
}

/** Change counts against the live revision. */
export const PreviewChanges = z
  .object({
    added: z.int().nonnegative(),
    changed: z.int().nonnegative(),
    removed: z.int().nonnegative(),
  })
  .meta({ description: 'files of the preview against the live revision, compared by content hash' });
export type PreviewChanges = z.infer<typeof PreviewChanges>;

/** `Preview` (spec §14). */
export const Preview = z
  .object({
    name: z.string().meta({ description: 'a label without "--", not of the form v<digits>' }),
    url: z.url().meta({ description: 'https://<name>--<slug>.<group>.<base>/' }),
    revision: RevisionId.meta({ description: 'the id of its current content' }),
    files: z.int().nonnegative(),
    size: z.int().nonnegative().meta({ description: 'bytes' }),
    title: z.string().optional(),
    description: z.string().optional(),
    repo: z.string().optional(),
    created_at: Timestamp,
    updated_at: Timestamp.meta({ description: 'its last publish' }),
    expires_at: Timestamp.meta({ description: 'updated_at + SITES_PREVIEW_TTL: the service removes it then' }),
    created_by: Actor.meta({ description: 'who first published it' }),
    changes: PreviewChanges.optional().meta({ description: 'its files against the live revision at its last publish' }),
  })
  .meta({ description: 'A named, expiring copy of a site beside its live content.' });
export type Preview = z.infer<typeof Preview>;

/** `GET …/previews`: by name. */
export const PreviewsResponse = z.object({ previews: z.array(Preview) });
export type PreviewsResponse = z.infer<typeof PreviewsResponse>;

/** `PreviewResult` (spec §14): what a preview publish answers. */
export const PreviewResult = z
  .object({
    preview: Preview,
    changes: PreviewChanges,
    pages: z.array(z.url()).max(20).meta({ description: 'the preview URLs of at most 20 added or changed HTML files, added first, then by path' }),
    unchanged: z.boolean().meta({ description: 'true when the files and description were the preview’s already: nothing was recorded and its expiry stayed' }),
  })
  .meta({ description: 'The preview published, and what it changes against the live site.' });
export type PreviewResult = z.infer<typeof PreviewResult>;

/** `{name}` of the preview routes. */
export const PreviewNameParam = z.string().min(1).max(63).meta({ description: 'the preview name: a label without "--", not of the form v<digits>' });

/** A preview of a site, by the edges' inputs. */
export const PreviewRef = z.object({
  site: z.string().meta({ description: 'full site path, e.g. "docs/app"' }),
  name: PreviewNameParam,
});
export type PreviewRef = z.output<typeof PreviewRef>;

const PreviewArchive = z.string().meta({
  contentMediaType: 'application/octet-stream',
  description: 'a .tar.gz or .zip archive with index.html at its root (one common top-level folder is stripped); the format is detected from magic bytes',
});
const PreviewIndex = z.string().meta({ contentMediaType: 'text/html', description: 'one HTML document that becomes index.html' });

/** The multipart body of a preview publish: exactly one of `bundle` or `index`, `meta` optional (documentation; busboy streams it). */
export const PreviewForm = z.xor([
  z.object({ meta: PreviewMetaInput.optional(), bundle: PreviewArchive }),
  z.object({ meta: PreviewMetaInput.optional(), index: PreviewIndex }),
]);

/** What `POST …/deploys/{id}/publish` answers: a `PublishResult`, or a `PreviewResult` for a deploy made with `preview` (spec §14). */
export const DeployPublished = z.union([PublishResult, PreviewResult]).meta({ description: 'PublishResult; PreviewResult when the deploy was created with "preview"' });

/**
 * `GET /api/sites/{path}/previews`: the previews, or, when a site's full path is `{path}/previews`
 * (a site whose slug is `previews`), that site, as `GET /api/sites/{path}/previews` always answered it.
 */
export const PreviewsOrSite = z
  .union([PreviewsResponse, Site])
  .meta({ description: 'the previews of {path}; or the Site {path}/previews when a site has that full path (its slug is "previews")' });

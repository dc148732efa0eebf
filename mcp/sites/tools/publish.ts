import * as z from 'zod';
import type { McpServer } from '@modelcontextprotocol/server';
import type { AppDeps } from '../../../app/deps.ts';
import { parseInput } from '../../../app/contract/parse.ts';
import { readPreviewMeta } from '../../../app/contract/preview.ts';
import { PublishMeta } from '../../../app/contract/publish.ts';
import { SitePatch } from '../../../app/contract/patch.ts';
import { publishSite } from '../../../app/publish/publish-site.ts';
import { publishPreview } from '../../../app/previews/publish-preview.ts';
import { patchSite } from '../../../app/site-lifecycle/patch.ts';
import type { Identity } from '../../../domain/auth.ts';
import { ValidationError } from '../../../domain/errors.ts';
import { toolFiles } from './files.ts';
import { noted } from '../audit.ts';
import { guard, jsonResult } from './result.ts';

const text = (what: string) => z.string().describe(what);

/** The metadata fields of publish_site (all optional but slug). */
const metaFields = {
  title: text('Site title; required when the site is new, defaults to the existing title on replace. With `preview`: what the preview shows, e.g. the pull request title').optional(),
  description: text('Short description (with `preview`: of the preview)').optional(),
  date: text('Free-text date, usually YYYY-MM-DD (sortable); not with `preview`').optional(),
  tags: z.array(z.string()).describe('Tags; not with `preview`').optional(),
  repo: text('Source repository URL (with `preview`: e.g. the pull request URL)').optional(),
  // The site field `preview` (an image URL) is `preview_image` here: `preview` names a preview (spec §14).
  preview_image: text('URL of a preview image the portal shows instead of a live iframe (the site field `preview`); not with `preview`').optional(),
  hidden: z.boolean().describe('Hidden sites are unlisted (admins only); they are still served; not with `preview`').optional(),
};

/** Site fields a preview does not have: given with `preview`, they are refused rather than silently dropped. */
const SITE_ONLY = ['date', 'tags', 'preview_image', 'hidden'] as const;

const fileSchema = z.object({
  path: text('Relative path inside the site, e.g. "index.html", "css/site.css", "img/logo.png"'),
  content: text('File content: text as is (encoding "utf8"), or base64 for binary files (encoding "base64")'),
  encoding: z.enum(['utf8', 'base64']).describe('How content is encoded; default utf8').optional(),
});

/** publish_site and update_site: the same use cases as POST /ingest/sites and PATCH /ingest/sites/{path}. */
export function registerPublishTools(server: McpServer, deps: AppDeps, identity: Identity): void {
  server.registerTool(
    'publish_site',
    {
      title: 'Publish a site',
      description:
        'Creates or replaces a static site at https://<slug>.<group>.<base>/ (group "" for a flat site <slug>.<base>). ' +
        'Give exactly one of `html` (one self-contained page, becomes index.html) or `files` (index.html at the root is required; ' +
        'binary files such as images as base64). Replacing a site swaps all of its files at once; the same files again record nothing (unchanged: true). ' +
        'A site in the trash must be restored or purged first. Returns the PublishResult: url, revision, permalink, the Site and unchanged. ' +
        'With `preview` (e.g. "pr-42") the files become a named preview beside the live site, at https://<preview>--<slug>.<group>.<base>/, ' +
        'and the live site is not touched (needs the preview capability, which publish implies; the site must be live); it expires some days after its last publish. ' +
        'Returns then the PreviewResult: the preview (url, revision, expires_at), its changes against live and the URLs of up to 20 changed pages.',
      inputSchema: z.object({
        group: text('Group path: "" (flat site), "docs" or "team/docs"').optional(),
        slug: text('Site label: lowercase letters, digits and inner hyphens'),
        preview: text('Publish a preview with this name (a label such as "pr-42", not v<digits>) instead of the live site').optional(),
        ...metaFields,
        html: text('One self-contained HTML page (alternative to files)').optional(),
        files: z.array(fileSchema).describe('The site files (alternative to html)').optional(),
      }),
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    },
    (args) =>
      guard('publish_site', async () => {
        const { html, files, preview, preview_image, ...meta } = args;
        // Metadata is read by the use case once it may: after the capability on the site is checked.
        const entries = toolFiles({ html, files }, deps.limits);
        if (preview !== undefined) {
          const site = meta.group ? `${meta.group}/${meta.slug}` : meta.slug;
          const previewMeta = () => {
            const stray = SITE_ONLY.filter((k) => args[k] !== undefined);
            if (stray.length) throw new ValidationError(`${stray.join(', ')} ${stray.length === 1 ? 'is a field' : 'are fields'} of the live site, not of a preview: leave ${stray.length === 1 ? 'it' : 'them'} out with "preview"`);
            return readPreviewMeta({ title: meta.title, description: meta.description, repo: meta.repo });
          };
          const result = await publishPreview(deps, identity, { site, name: preview, meta: previewMeta, files: entries });
          return noted(jsonResult(result), { site, target: `preview:${preview}`, revision: result.preview.revision, unchanged: result.unchanged });
        }
        const publishMeta = { ...meta, ...(preview_image !== undefined ? { preview: preview_image } : {}) };
        const result = await publishSite(deps, identity, { meta: async () => parseInput(PublishMeta, publishMeta, { name: 'meta', prefix: 'meta' }), files: entries });
        return noted(jsonResult(result), { revision: result.revision, unchanged: result.unchanged });
      }),
  );

  server.registerTool(
    'update_site',
    {
      title: 'Edit site metadata',
      description:
        'Edits the metadata of a live site (needs the patch capability). Fields given replace the stored ones; null clears an optional field. Returns the Site.',
      inputSchema: z.object({
        site: text('Full site path: group labels then slug, e.g. "docs/app" or "demo"'),
        title: text('New title').optional(),
        description: text('New description').nullable().optional(),
        date: text('New date').nullable().optional(),
        tags: z.array(z.string()).nullable().optional(),
        repo: text('New repository URL').nullable().optional(),
        preview: text('New preview image URL (the site field `preview`; publish_site calls it preview_image)').nullable().optional(),
        hidden: z.boolean().optional(),
      }),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    (args) =>
      guard('update_site', async () => {
        const { site, ...patch } = args;
        // The changes are checked once `patch` on the site is (403 before 400, as over HTTP).
        return jsonResult(await patchSite(deps, identity, { site, patch: async () => parseInput(SitePatch, patch) }));
      }),
  );
}

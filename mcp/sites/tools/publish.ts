import * as z from 'zod';
import type { McpServer } from '@modelcontextprotocol/server';
import type { AppDeps } from '../../../app/deps.ts';
import { parseInput } from '../../../app/contract/parse.ts';
import { PublishMeta } from '../../../app/contract/publish.ts';
import { SitePatch } from '../../../app/contract/patch.ts';
import { publishSite } from '../../../app/publish/publish-site.ts';
import { patchSite } from '../../../app/site-lifecycle/patch.ts';
import type { Identity } from '../../../domain/auth.ts';
import { toolFiles } from './files.ts';
import { noted } from '../audit.ts';
import { guard, jsonResult } from './result.ts';

const text = (what: string) => z.string().describe(what);

/** Metadata fields shared by publish_site (all optional but slug) and update_site. */
const metaFields = {
  title: text('Site title; required when the site is new, defaults to the existing title on replace').optional(),
  description: text('Short description').optional(),
  date: text('Free-text date, usually YYYY-MM-DD (sortable)').optional(),
  tags: z.array(z.string()).describe('Tags').optional(),
  repo: text('Source repository URL').optional(),
  preview: text('URL of a preview image the portal shows instead of a live iframe').optional(),
  hidden: z.boolean().describe('Hidden sites are unlisted (admins only); they are still served').optional(),
};

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
        'A site in the trash must be restored or purged first. Returns the PublishResult: url, revision, the Site and unchanged.',
      inputSchema: z.object({
        group: text('Group path: "" (flat site), "docs" or "team/docs"').optional(),
        slug: text('Site label: lowercase letters, digits and inner hyphens'),
        ...metaFields,
        html: text('One self-contained HTML page (alternative to files)').optional(),
        files: z.array(fileSchema).describe('The site files (alternative to html)').optional(),
      }),
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    },
    (args) =>
      guard('publish_site', async () => {
        const { html, files, ...meta } = args;
        // Both read by the use case once it may: the files only after `publish` on the site is checked.
        const entries = toolFiles({ html, files }, deps.limits);
        const result = await publishSite(deps, identity, { meta: async () => parseInput(PublishMeta, meta, { name: 'meta', prefix: 'meta' }), files: entries });
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
        preview: text('New preview image URL').nullable().optional(),
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

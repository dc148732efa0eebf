import * as z from 'zod';
import type { McpServer } from '@modelcontextprotocol/server';
import { authorize, type Identity } from '../../../domain/auth.ts';
import { publishFiles } from '../../../app/publish/publish.ts';
import { patchSite } from '../../../app/site-lifecycle/lifecycle.ts';
import { parseSitePath } from '../../../domain/paths.ts';
import type { ApiContext } from '../../../api/context.ts';
import { preparePublish, parsePatch } from '../../../api/requests.ts';
import { siteJson } from '../../../api/site-json.ts';
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

/** publish_site and update_site: the same command handlers as POST/PATCH /ingest/sites. */
export function registerPublishTools(server: McpServer, api: ApiContext, identity: Identity): void {
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
        const target = preparePublish(identity, JSON.stringify({ group: '', ...meta }));
        const entries = toolFiles({ html, files }, api.deps.limits);
        const { site, revision, unchanged } = await publishFiles(api.deps, identity, target, entries);
        const json = siteJson(api, site, identity);
        return noted(jsonResult({ url: json.url, group: site.group, slug: site.slug, updated_at: site.updatedAt, revision: revision.id, site: json, unchanged }), { revision: revision.id, unchanged });
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
        const address = parseSitePath(site);
        authorize(identity, 'patch', address);
        return jsonResult(siteJson(api, await patchSite(api.deps, identity, address, parsePatch(patch)), identity));
      }),
  );
}

import * as z from 'zod';
import type { McpServer } from '@modelcontextprotocol/server';
import type { AppDeps } from '../../../app/deps.ts';
import { parseInput } from '../../../app/contract/parse.ts';
import { RollbackInput, SiteRef } from '../../../app/contract/site-ref.ts';
import { listRevisions } from '../../../app/queries/revisions.ts';
import { purgeSite } from '../../../app/site-lifecycle/purge.ts';
import { restoreSite } from '../../../app/site-lifecycle/restore.ts';
import { rollbackSite } from '../../../app/site-lifecycle/rollback.ts';
import { unpublishSite } from '../../../app/site-lifecycle/unpublish.ts';
import type { Identity } from '../../../domain/auth.ts';
import { fullPath, parseSitePath } from '../../../domain/paths.ts';
import { noted } from '../audit.ts';
import { guard, jsonResult } from './result.ts';

const sitePath = z.string().describe('Full site path: group labels then slug, e.g. "docs/app" or "demo"');

/**
 * The lifecycle tools. Each checks its arguments with the shared schema and calls the same
 * use case as the HTTP route, which checks the capability on the path before anything is
 * looked up.
 */
export function registerLifecycleTools(server: McpServer, deps: AppDeps, identity: Identity): void {
  server.registerTool(
    'unpublish_site',
    {
      title: 'Take a site offline',
      description:
        'Takes a live site offline at once (needs unpublish). Its files and revisions are kept in quarantine and can be brought back with restore_site until they are purged.',
      inputSchema: z.object({ site: sitePath }),
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    },
    (args) =>
      guard('unpublish_site', async () => {
        const input = parseInput(SiteRef, args);
        await unpublishSite(deps, identity, input);
        return jsonResult({ unpublished: fullPath(parseSitePath(input.site)) });
      }),
  );

  server.registerTool(
    'restore_site',
    {
      title: 'Bring a quarantined site back',
      description: 'Brings an unpublished (quarantined) site back online exactly as it was (needs publish). Returns the Site.',
      inputSchema: z.object({ site: sitePath }),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    (args) => guard('restore_site', async () => jsonResult(await restoreSite(deps, identity, parseInput(SiteRef, args)))),
  );

  server.registerTool(
    'purge_site',
    {
      title: 'Destroy a quarantined site for good',
      description:
        'Permanently destroys an unpublished (quarantined) site: every file and revision. Irreversible. Needs purge; a live site must be unpublished first.',
      inputSchema: z.object({ site: sitePath }),
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    },
    (args) =>
      guard('purge_site', async () => {
        const input = parseInput(SiteRef, args);
        await purgeSite(deps, identity, input);
        return jsonResult({ purged: fullPath(parseSitePath(input.site)) });
      }),
  );

  server.registerTool(
    'list_revisions',
    {
      title: 'List revisions of a site',
      description: 'Lists the revisions of a live site (needs rollback): the live one first, then archived ones, most recently archived first.',
      inputSchema: z.object({ site: sitePath }),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) => guard('list_revisions', async () => jsonResult(await listRevisions(deps, identity, parseInput(SiteRef, args)))),
  );

  server.registerTool(
    'rollback_site',
    {
      title: 'Roll a site back',
      description:
        'Makes an archived revision live (needs rollback; versioning must be on). Without `revision` the most recently archived one; ' +
        'the live revision is archived, so a second rollback returns to where you started. Returns the Site.',
      inputSchema: z.object({
        site: sitePath,
        revision: z.string().describe('Revision id (YYYYMMDDTHHMMSS.nnnnnnnnnZ) from list_revisions, or "current"').optional(),
      }),
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    },
    (args) =>
      guard('rollback_site', async () => {
        // The revision is checked once `rollback` on the site is (403 before 400, as over HTTP).
        const { site, revision } = await rollbackSite(deps, identity, { site: args.site, revision: async () => parseInput(RollbackInput, args).revision });
        return noted(jsonResult(site), { revision });
      }),
  );
}

import * as z from 'zod';
import type { McpServer } from '@modelcontextprotocol/server';
import { authorize, type Identity } from '../../../domain/auth.ts';
import { purgeSite, restoreSite, rollbackSite, unpublishSite } from '../../../app/site-lifecycle/lifecycle.ts';
import { revisionsOf } from '../../../app/queries/sites.ts';
import { NotFoundError } from '../../../domain/errors.ts';
import { fullPath, parseSitePath } from '../../../domain/paths.ts';
import type { ApiContext } from '../../../api/context.ts';
import { parseRollback } from '../../../api/requests.ts';
import { revisionJson, siteJson } from '../../../api/site-json.ts';
import { noted } from '../audit.ts';
import { guard, jsonResult } from './result.ts';

const sitePath = z.string().describe('Full site path: group labels then slug, e.g. "docs/app" or "demo"');

/** The lifecycle tools: each checks its capability on the path before anything is looked up. */
export function registerLifecycleTools(server: McpServer, api: ApiContext, identity: Identity): void {
  server.registerTool(
    'unpublish_site',
    {
      title: 'Take a site offline',
      description:
        'Takes a live site offline at once (needs unpublish). Its files and revisions are kept in quarantine and can be brought back with restore_site until they are purged.',
      inputSchema: z.object({ site: sitePath }),
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    },
    ({ site }) =>
      guard('unpublish_site', async () => {
        const address = parseSitePath(site);
        await unpublishSite(api.deps, identity, address);
        return jsonResult({ unpublished: fullPath(address) });
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
    ({ site }) => guard('restore_site', async () => jsonResult(siteJson(api, await restoreSite(api.deps, identity, parseSitePath(site)), identity))),
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
    ({ site }) =>
      guard('purge_site', async () => {
        const address = parseSitePath(site);
        await purgeSite(api.deps, identity, address);
        return jsonResult({ purged: fullPath(address) });
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
    ({ site }) =>
      guard('list_revisions', async () => {
        const address = parseSitePath(site);
        authorize(identity, 'rollback', address);
        const doc = await api.deps.readModel.getSite(fullPath(address));
        if (!doc || doc.status !== 'live') throw new NotFoundError(`no site ${fullPath(address)}`);
        return jsonResult({ revisions: revisionsOf(doc).map((r) => revisionJson(r.info, r.current)) });
      }),
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
    ({ site, revision }) =>
      guard('rollback_site', async () => {
        const address = parseSitePath(site);
        authorize(identity, 'rollback', address);
        const body = revision === undefined ? undefined : { revision };
        const doc = await rollbackSite(api.deps, identity, address, parseRollback(body));
        return noted(jsonResult(siteJson(api, doc, identity)), { revision: doc.live.id });
      }),
  );
}

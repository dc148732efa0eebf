import * as z from 'zod';
import type { McpServer } from '@modelcontextprotocol/server';
import type { AppDeps } from '../../../app/deps.ts';
import { SearchText } from '../../../app/contract/site-query.ts';
import { listMySites } from '../../../app/queries/my-sites.ts';
import type { Identity } from '../../../domain/auth.ts';
import { describeGrant } from '../../../domain/grants.ts';
import { guard, jsonResult } from './result.ts';

/**
 * list_sites: the live sites this connection's grants cover (any capability), hidden
 * ones included since the connection may act on them. Same filters as GET /api/sites.
 */
export function registerListTool(server: McpServer, deps: AppDeps, identity: Identity): void {
  const grants = identity.principal.kind === 'grants' ? identity.principal.grants : [];
  server.registerTool(
    'list_sites',
    {
      title: 'List my sites',
      description:
        `Lists the live sites this connection may act on (${grants.map(describeGrant).join('; ') || 'none'}), newest date first. ` +
        'Optional filters: q (text in title, slug, group, description, tags), tag, group (a subtree). Returns {sites, count}.',
      inputSchema: z.object({
        q: SearchText.describe('Case-insensitive text search').optional(),
        tag: z.string().describe('Exact tag').optional(),
        group: z.string().describe('Group subtree, e.g. "docs"').optional(),
        limit: z.number().int().describe('Page size, 1–500; default 50').optional(),
        offset: z.number().int().describe('Page offset; default 0').optional(),
      }),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) => guard('list_sites', async () => jsonResult(await listMySites(deps, identity, args))),
  );
}

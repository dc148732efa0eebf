import * as z from 'zod';
import type { McpServer } from '@modelcontextprotocol/server';
import type { Identity } from '../../../domain/auth.ts';
import { ValidationError } from '../../../domain/errors.ts';
import { grantCovers } from '../../../domain/grants.ts';
import { parseGroup } from '../../../domain/paths.ts';
import type { ApiContext } from '../../../api/context.ts';
import { SearchText } from '../../../api/schemas/site-query.ts';
import { siteJson } from '../../../api/site-json.ts';
import { describeGrant } from '../../../domain/grants.ts';
import { guard, jsonResult } from './result.ts';

/**
 * list_sites: the live sites this connection's grants cover (any capability), hidden
 * ones included since the connection may act on them. Same filters as GET /api/sites.
 */
export function registerListTool(server: McpServer, api: ApiContext, identity: Identity): void {
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
    (args) =>
      guard('list_sites', async () => {
        const limit = args.limit ?? 50;
        const offset = args.offset ?? 0;
        if (limit < 1 || limit > 500) throw new ValidationError('limit must be between 1 and 500');
        if (offset < 0) throw new ValidationError('offset must not be negative');
        if (args.group !== undefined && args.group !== '') parseGroup(args.group.split('/').slice(0, 2).join('/'));
        const { all } = await api.deps.readModel.listSites({
          ...(args.q ? { q: args.q } : {}),
          ...(args.tag ? { tag: args.tag } : {}),
          ...(args.group ? { group: args.group } : {}),
          sort: 'date',
          includeHidden: true,
          limit: 500,
          offset: 0,
        });
        const covered = all.filter((s) => grants.some((g) => grantCovers(g, { group: s.group, slug: s.slug })));
        return jsonResult({ sites: covered.slice(offset, offset + limit).map((s) => siteJson(api, s, identity)), count: covered.length });
      }),
  );
}

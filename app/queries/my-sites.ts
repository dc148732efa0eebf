import type { Identity } from '../../domain/auth.ts';
import { ValidationError } from '../../domain/errors.ts';
import { parseGroup } from '../../domain/paths.ts';
import { coversAny } from '../authorize.ts';
import type { Site } from '../contract/site.ts';
import type { AppDeps } from '../deps.ts';

export type MySitesInput = { readonly q?: string; readonly tag?: string; readonly group?: string; readonly limit?: number; readonly offset?: number };

/**
 * The live sites a credential may act on (any capability), hidden ones included since it
 * may act on them, newest date first, with the listing's filters: MCP `list_sites`.
 */
export async function listMySites(deps: AppDeps, identity: Identity, input: MySitesInput): Promise<{ sites: Site[]; count: number }> {
  const limit = input.limit ?? 50;
  const offset = input.offset ?? 0;
  if (limit < 1 || limit > 500) throw new ValidationError('limit must be between 1 and 500');
  if (offset < 0) throw new ValidationError('offset must not be negative');
  if (input.group !== undefined && input.group !== '') parseGroup(input.group.split('/').slice(0, 2).join('/'));
  const { all } = await deps.queries.listSites({
    ...(input.q ? { q: input.q } : {}),
    ...(input.tag ? { tag: input.tag } : {}),
    ...(input.group ? { group: input.group } : {}),
    sort: 'date',
    includeHidden: true,
    limit: 500,
    offset: 0,
  });
  const covered = all.filter((s) => coversAny(identity, { group: s.group, slug: s.slug }));
  return { sites: covered.slice(offset, offset + limit).map((s) => deps.shapes.site(s, identity)), count: covered.length };
}

import type { Identity } from '../../domain/auth.ts';
import type { PublishResult } from '../contract/publish.ts';
import type { AppDeps } from '../deps.ts';
import type { PublishOutcome } from './commit.ts';

/** `PublishResult` (spec §4), the answer of every publish (an archive, a deploy, an MCP tool), as the publisher may see it. */
export function publishResult(deps: Pick<AppDeps, 'shapes'>, { site, revision, unchanged }: PublishOutcome, reader: Identity): PublishResult {
  const json = deps.shapes.site(site, reader);
  return { url: json.url, group: site.group, slug: site.slug, updated_at: site.updatedAt, revision: revision.id, site: json, unchanged };
}

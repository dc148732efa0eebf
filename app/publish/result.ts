import type { PublishResult } from '../contract/publish.ts';
import type { AppDeps } from '../deps.ts';
import type { PublishOutcome } from './commit.ts';

/** `PublishResult` (spec §4), the answer of every publish: an archive, a deploy, an MCP tool. */
export function publishResult(deps: Pick<AppDeps, 'shapes'>, { site, revision, unchanged }: PublishOutcome): PublishResult {
  const json = deps.shapes.site(site);
  return { url: json.url, group: site.group, slug: site.slug, updated_at: site.updatedAt, revision: revision.id, site: json, unchanged };
}

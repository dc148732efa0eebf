import type { Identity } from '../../domain/auth.ts';
import type { PublishResult } from '../contract/publish.ts';
import type { AppDeps } from '../deps.ts';
import type { PublishOutcome } from './commit.ts';

/** `PublishResult` (spec §4), the answer of every publish (an archive, a deploy, an MCP tool), as the publisher may see it. */
export function publishResult(deps: Pick<AppDeps, 'shapes' | 'siteUrl'>, { site, revision, unchanged }: PublishOutcome, reader: Identity): PublishResult {
  const json = deps.shapes.site(site, reader);
  // The number of the live revision as the read model has it (the one decided, or the one already live when nothing changed).
  const number = site.live.id === revision.id ? site.live.number : revision.number;
  const permalink = number !== undefined ? { permalink: deps.siteUrl(site, { kind: 'permalink', number }) } : {};
  return { url: json.url, group: site.group, slug: site.slug, updated_at: site.updatedAt, revision: revision.id, site: json, ...permalink, unchanged };
}

import type { Context } from 'koa';
import type { Identity } from '../domain/auth.ts';
import type { ApiContext } from './context.ts';
import { handlePublishRequest } from './multipart.ts';
import type { PublishResult } from './schemas/publish.ts';
import { siteJson } from './site-json.ts';

/** Runs a multipart publish and shapes the `PublishResult` (spec §4). */
export async function handlePublishRequestFor(api: ApiContext, ctx: Context, identity: Identity): Promise<PublishResult> {
  const { site, revision, unchanged } = await handlePublishRequest(api, ctx, identity);
  const json = siteJson(api, site, identity);
  return { url: json.url, group: site.group, slug: site.slug, updated_at: site.updatedAt, revision: revision.id, site: json, unchanged };
}

import type { Identity } from '../../domain/auth.ts';
import { readableSite } from '../authorize.ts';
import type { RevisionsResponse } from '../contract/revision.ts';
import { revisionJson } from '../contract/site-json.ts';
import type { SiteRef } from '../contract/site-ref.ts';
import type { AppDeps } from '../deps.ts';
import { revisionsOf } from './sites.ts';
import { siteStorage } from './storage.ts';

/**
 * A live site's revisions, live first, then archived, most recently archived first, with
 * what they cost together (spec §4, §5): `GET /ingest/sites/{path}/revisions` (a key needs
 * `rollback`), `GET /api/sites/{path}/revisions` (anyone signed in), MCP `list_revisions`.
 */
export async function listRevisions(deps: AppDeps, identity: Identity, input: SiteRef): Promise<RevisionsResponse> {
  const site = await readableSite(deps, identity, input.site);
  const permalink = (number: number) => deps.siteUrl(site, { kind: 'permalink', number });
  return { revisions: revisionsOf(site).map((r) => revisionJson(r.info, r.current, permalink)), ...(await siteStorage(site, deps.manifests)) };
}

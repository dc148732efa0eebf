import type { Identity } from '../../domain/auth.ts';
import { refuseViewer } from '../authorize.ts';
import { readLater, type Later } from '../contract/later.ts';
import type { PublishMeta, PublishResult } from '../contract/publish.ts';
import type { AppDeps } from '../deps.ts';
import { commitFiles } from './commit.ts';
import { publishResult } from './result.ts';
import type { IncomingFile } from './store-files.ts';
import { publishTarget } from './target.ts';

export type { IncomingFile } from './store-files.ts';

export type PublishSiteInput = {
  /** Read once the identity may publish somewhere (a viewer is refused before the request is read). */
  readonly meta: Later<PublishMeta>;
  /** The files as they arrive (an archive read while it uploads, a tool's decoded files); read only once authorized. */
  readonly files: AsyncIterable<IncomingFile>;
  /** Awaited just before the switch: lets the caller veto (a multipart body with a bad trailing part). */
  readonly beforeCommit?: () => Promise<void>;
};

/**
 * Publish a site from its files (spec §4): `POST /ingest/sites`, the portal's
 * `POST /api/sites`, the MCP `publish_site` tool. Needs `publish` on the site, checked
 * before a byte of the files is read.
 */
export async function publishSite(deps: AppDeps, identity: Identity, input: PublishSiteInput): Promise<PublishResult> {
  refuseViewer(identity);
  const target = publishTarget(identity, await readLater(input.meta));
  return publishResult(deps, await commitFiles(deps, identity.actor, target, input.files, input.beforeCommit), identity);
}

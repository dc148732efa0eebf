import type { Identity } from '../../domain/auth.ts';
import { siteCommands } from '../aggregates.ts';
import type { PreviewRef } from '../contract/preview.ts';
import type { AppDeps } from '../deps.ts';
import { collectDropped } from '../jobs/gc.ts';
import { previewTarget } from './target.ts';

/**
 * `DELETE /ingest/sites/{path}/previews/{name}` (a key with `preview`) and
 * `DELETE /api/sites/{path}/previews/{name}` (admins) (spec §14): the preview goes offline at
 * once (`PreviewRemoved`, naming who removed it) and the files only it held are collected.
 * An unknown preview, or a site that is not live, answers 404.
 */
export async function removePreview(deps: AppDeps, identity: Identity, input: PreviewRef): Promise<void> {
  const { address, name } = previewTarget(identity, input.site, input.name);
  const { events } = await siteCommands(deps).handle(address, identity.actor, { type: 'RemovePreview', address, name });
  for (const e of events) {
    if (e.type === 'PreviewRemoved') await collectDropped(deps, [{ manifest: e.data.manifest, ...(e.data.favicon ? { favicon: e.data.favicon } : {}) }]);
  }
}

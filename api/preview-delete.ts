import type { RouterContext } from '@koa/router';
import { removePreview } from '../app/previews/remove-preview.ts';
import { meansSite } from '../app/previews/route-reading.ts';
import { unpublishSite } from '../app/site-lifecycle/unpublish.ts';
import type { Identity } from '../domain/auth.ts';
import type { ApiContext } from './context.ts';
import { param, sitePath } from './site-path.ts';
import { noteWrite } from './write-log.ts';

/**
 * `DELETE …/sites/{path}/previews/{name}` on the ingest and the management API: the removal of
 * the preview, or the unpublish of the site `{path}/previews/{name}` in a group whose last label
 * is `previews` (which reading is meant: see meansSite).
 */
export async function deletePreviewOrSite(api: ApiContext, ctx: RouterContext, identity: Identity): Promise<void> {
  const [site, name] = [sitePath(ctx), param(ctx, 'name')];
  const whole = `${site}/previews/${name}`;
  if (await meansSite(api.deps, identity, { path: whole, capability: 'unpublish' }, site)) {
    noteWrite(ctx, { action: 'unpublish', site: whole });
    await unpublishSite(api.deps, identity, { site: whole });
  } else {
    noteWrite(ctx, { target: `preview:${name}` });
    await removePreview(api.deps, identity, { site, name });
  }
  ctx.status = 204;
}

import type { Readable } from 'node:stream';
import type { Identity } from '../../domain/auth.ts';
import { NotFoundError } from '../../domain/errors.ts';
import { faviconType } from '../../domain/favicon.ts';
import { readableSite } from '../authorize.ts';
import type { SiteRef } from '../contract/site-ref.ts';
import type { AppDeps } from '../deps.ts';

/**
 * `GET /api/sites/{path}/favicon` (spec §7): the live revision's favicon, of an allowed image
 * type. The type is checked again here: revisions published before types were allow-listed
 * may hold anything. Publisher bytes: the route serves them inert.
 */
export async function siteFavicon(deps: AppDeps, identity: Identity, input: SiteRef): Promise<{ type: string; stream: Readable }> {
  const site = await readableSite(deps, identity, input.site);
  const favicon = site.live.favicon;
  const type = favicon && faviconType(favicon.type);
  const stream = favicon && type && (await deps.blobs.get(favicon.hash));
  if (!favicon || !type || !stream) throw new NotFoundError(`site ${site.path} has no favicon`);
  return { type, stream };
}

import type { Identity } from '../../domain/auth.ts';
import type { SiteAddress } from '../../domain/paths.ts';
import { assertPreviewName } from '../../domain/site/previews.ts';
import { authorizeSite } from '../authorize.ts';

/** A preview of a site, once `identity` may act on previews there. */
export type PreviewTarget = { readonly address: SiteAddress; readonly name: string };

/**
 * The preview a call acts on (spec §14): the site path's labels (400), `preview` on it (403;
 * `publish` implies it), then the name's rules (400), all before anything is looked up.
 * A viewer is refused before the path is read, as for every write.
 */
export function previewTarget(identity: Identity, site: string, name: string): PreviewTarget {
  const address = authorizeSite(identity, 'preview', site);
  assertPreviewName(name, address.slug);
  return { address, name };
}

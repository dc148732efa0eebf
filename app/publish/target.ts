import type { Identity } from '../../domain/auth.ts';
import { siteAddress } from '../../domain/paths.ts';
import { parseMetaFields, type MetaInput } from '../../domain/site/meta.ts';
import { authorizeAddress, refuseViewer } from '../authorize.ts';
import type { PublishMeta } from '../contract/publish.ts';
import type { PublishTarget } from './commit.ts';

/**
 * Where a publish goes and with which metadata, once `identity` may publish there: the
 * address's labels checked by the domain's rules (400: the target must be read to be
 * authorized), then `publish` on it (403), then the rest of the metadata (400), before
 * anything is looked up or stored. Shared by every use case that publishes.
 */
export function publishTarget(identity: Identity, meta: PublishMeta): PublishTarget {
  refuseViewer(identity);
  const address = siteAddress(meta.group ?? '', meta.slug);
  authorizeAddress(identity, 'publish', address);
  return { address, meta: parseMetaFields(meta, false) as MetaInput };
}

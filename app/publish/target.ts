import type { Identity } from '../../domain/auth.ts';
import { siteAddress } from '../../domain/paths.ts';
import { parseMetaFields, type MetaInput } from '../../domain/site/meta.ts';
import { authorizeAddress, refuseViewer } from '../authorize.ts';
import type { PublishMeta } from '../contract/publish.ts';
import type { PublishTarget } from './commit.ts';

/**
 * Where a publish goes and with which metadata, once `identity` may publish there: the
 * labels and metadata checked by the domain's rules (400), then `publish` on the address
 * (403), before anything is looked up or stored. Shared by every use case that publishes.
 */
export function publishTarget(identity: Identity, meta: PublishMeta): PublishTarget {
  refuseViewer(identity);
  const address = siteAddress(meta.group ?? '', meta.slug);
  const fields = parseMetaFields(meta, false) as MetaInput;
  authorizeAddress(identity, 'publish', address);
  return { address, meta: fields };
}

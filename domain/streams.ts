import { fullPath, type SiteAddress } from './paths.ts';

/**
 * Stream names live here and nowhere else. One stream per site *address*, so the
 * event store's expected-revision check is the uniqueness constraint for a path.
 */
export const siteStream = (address: SiteAddress): string => `site-${fullPath(address).replaceAll('/', '.')}`;
export const keyStream = (id: number): string => `key-${id}`;
/**
 * Where a key's `KeyUsed` events go: beside the key's own stream, never in it, so a command
 * on the key (revoke, and the check before recording a use) reads two events however long
 * the key has been in use. Logs written before this stream existed hold `KeyUsed` in
 * `key-<id>`; both are read back.
 */
export const keyUsageStream = (id: number): string => `keyuse-${id}`;
export const connectionStream = (id: string): string => `connection-${id}`;
export const oauthClientStream = (id: string): string => `oauthclient-${id}`;
export const webhookStream = (id: string): string => `webhook-${id}`;
/**
 * The claim on a custom domain (spec §15): one stream per domain name, so its expected
 * revision is what lets only one site hold the name (domain/custom-domain/claim.ts).
 */
export const domainStream = (domain: string): string => `domain-${domain}`;
/** Streams whose revisions hand out small integer ids (site ids, key ids). */
export const sequenceStream = (name: 'site' | 'key'): string => `sequence-${name}`;

export const isSiteStream = (stream: string): boolean => stream.startsWith('site-');
export const isKeyStream = (stream: string): boolean => stream.startsWith('key-');

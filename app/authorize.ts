import type { Identity } from '../domain/auth.ts';
import { ForbiddenError, NotFoundError } from '../domain/errors.ts';
import { can, type Capability } from '../domain/grants.ts';
import { fullPath, parseSitePath, type SiteAddress } from '../domain/paths.ts';
import { readable } from '../domain/site/lifecycle.ts';
import type { SiteDoc } from '../projections/documents.ts';

/**
 * Authorization, in one place (spec §2, §4, §5). Every use case asks here before it looks
 * anything up; the HTTP routes, the MCP tools and the CLI only authenticate. An identity's
 * principal says what it may do: an admin everything; a key or an MCP connection what its
 * grants cover; a viewer (a signed-in person who is not an admin, or a scoped key on the
 * management plane) only reads.
 */

/** Admin-only operations (spec §5: keys, connections, the trash, a site's events, storage). */
export function requireAdmin(identity: Identity): void {
  if (identity.principal.kind !== 'admin') throw new ForbiddenError('this needs an admin');
}

/** A viewer changes nothing anywhere: refused before its input is even read (spec §5: admin-only writes). */
export function refuseViewer(identity: Identity): void {
  if (identity.principal.kind === 'viewer') throw new ForbiddenError('this needs an admin');
}

/**
 * The site a command acts on, once `identity` may do `capability` there. A viewer may do
 * nothing anywhere, so it is refused before the path is even read (as the admin check of the
 * management plane always did); anyone else has the path parsed (400 for a bad one) and the
 * capability checked on it, before anything is looked up (a refusal reveals nothing).
 */
export function authorizeSite(identity: Identity, capability: Capability, path: string): SiteAddress {
  refuseViewer(identity);
  const address = parseSitePath(path);
  authorizeAddress(identity, capability, address);
  return address;
}

/** `capability` on a site already addressed (a publish names its site in its meta). */
export function authorizeAddress(identity: Identity, capability: Capability, address: SiteAddress): void {
  refuseViewer(identity);
  if (!can(identity.principal, capability, address)) {
    throw new ForbiddenError(`this credential lacks the "${capability}" capability on ${fullPath(address)}`);
  }
}

/**
 * A site as `identity` may read it (its revisions, files, favicon, history). A person reads
 * any live site, hidden ones if an admin (hidden means unlisted, and a miss answers 404
 * exactly like an absent site). A key or an MCP connection reads what it may roll back
 * (spec §4: the ingest plane's revisions need `rollback`), hidden ones included. Checked
 * before the lookup; the lifecycle machine says whether the site can be read at all.
 */
export async function readableSite(deps: { readonly queries: { getSite(path: string): Promise<SiteDoc | undefined> } }, identity: Identity, path: string): Promise<SiteDoc> {
  const address = identity.principal.kind === 'grants' ? authorizeSite(identity, 'rollback', path) : parseSitePath(path);
  const site = await deps.queries.getSite(fullPath(address));
  const hiddenFromThem = site?.meta.hidden && identity.principal.kind === 'viewer';
  if (!site || !readable(site.status) || hiddenFromThem) throw new NotFoundError(`no site ${fullPath(address)}`);
  return site;
}

/** May `identity` see hidden sites in listings? Admins only (spec §5). */
export function seesHidden(identity: Identity): boolean {
  return identity.principal.kind === 'admin';
}

/**
 * Who may approve an MCP connection (spec §13): a person signed in through the forward-auth
 * proxy and listed in SITES_MCP_ALLOWED_USERS. Admin rights do not imply it, and no key,
 * connection or job approves. Asked by the consent page before it shows the form (or fetches
 * a client's metadata document) and by the consent itself.
 */
export function requireApprover(settings: { readonly mcpApprovers: ReadonlySet<string> }, identity: Identity): void {
  if (identity.via !== 'user' || !settings.mcpApprovers.has(identity.name)) {
    throw new ForbiddenError(`${identity.name} may not approve MCP connections on this server. Ask an administrator (SITES_MCP_ALLOWED_USERS).`);
  }
}

/**
 * Who asks `GET /tls/ask` (spec §15), as the edge saw the request: whether the TCP peer is a
 * trusted proxy, and whether the request carries a header a proxy or CDN adds when it relays
 * a request for a client of its own.
 */
export type CertificateAsker = { readonly trustedPeer: boolean; readonly relayed: boolean };

/**
 * Only the TLS proxy itself asks which names to certify: anyone else, and a request a proxy
 * relays for someone else, gets the 404 of an endpoint that does not exist (the list of live
 * sites is not for them to probe, even though their hosts are public).
 */
export function authorizeCertificateAsk(asker: CertificateAsker): void {
  if (!asker.trustedPeer || asker.relayed) throw new NotFoundError('no such endpoint');
}

/** Sites a grant holder may act on with any capability (MCP list_sites); everyone else: every site. */
export function coversAny(identity: Identity, address: SiteAddress): boolean {
  const p = identity.principal;
  return p.kind !== 'grants' || p.grants.some((g) => g.permissions.some((c) => can(p, c, address)));
}

import type { Context } from 'koa';
import { authenticateKey, forwardAuthIdentity, isAdmin, type Identity } from '../domain/auth.ts';
import { ForbiddenError, UnauthenticatedError } from '../domain/errors.ts';
import { inCidrs, isLoopback } from '../host/config.ts';
import type { ApiContext } from './context.ts';

/** The bearer token of the request, if it sends one. */
export function bearer(ctx: Context): string | undefined {
  const header = ctx.get('authorization');
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m?.[1];
}

/**
 * The signed-in person: the forward-auth user, honoured only when the TCP peer is a
 * trusted proxy; or, with `SITES_LOCAL_ADMIN` on a loopback-only service, the local admin
 * for a request straight from this machine (one that names a proxy hop is never signed in
 * this way, so a local proxy cannot turn public traffic into an admin).
 */
export function forwardAuthUser(api: ApiContext, ctx: Context): string | undefined {
  const peer = ctx.req.socket.remoteAddress;
  const user = ctx.get(api.config.forwardAuthHeader).trim();
  if (user) return inCidrs(peer, api.config.trustedProxies) ? user : undefined;
  const local = api.config.localAdmin;
  if (local && isLoopback(peer) && !ctx.get('x-forwarded-for') && !ctx.get('forwarded') && !ctx.get('via')) return local;
  return undefined;
}

async function keyIdentity(api: ApiContext, ctx: Context): Promise<Identity | undefined> {
  const token = bearer(ctx);
  if (token === undefined) return undefined;
  const identity = await authenticateKey(token, (hash) => api.deps.readModel.getKeyByTokenHash(hash), api.deps.now());
  if (!identity) throw new UnauthenticatedError('unknown, expired or revoked API key');
  if (identity.keyId !== undefined) api.keyUsed(identity.keyId);
  return identity;
}

/** Ingest plane: API keys only (MCP connections use their own tokens at /mcp). */
export async function requireKey(api: ApiContext, ctx: Context): Promise<Identity> {
  const identity = await keyIdentity(api, ctx);
  if (!identity) throw new UnauthenticatedError('an API key is required: Authorization: Bearer key_…');
  return identity;
}

/**
 * Management plane: a forward-auth user from a trusted proxy, or any valid key
 * (an admin key acts as Admin, a scoped key as a Viewer).
 */
export async function requireUser(api: ApiContext, ctx: Context): Promise<Identity> {
  const key = await keyIdentity(api, ctx);
  if (key) return key.principal.kind === 'admin' ? key : { ...key, principal: { kind: 'viewer' } };
  const user = forwardAuthUser(api, ctx);
  if (user) return forwardAuthIdentity(user, api.config.adminUsers);
  throw new UnauthenticatedError('sign in through the portal proxy or send an API key');
}

export async function requireAdmin(api: ApiContext, ctx: Context): Promise<Identity> {
  const identity = await requireUser(api, ctx);
  if (!isAdmin(identity)) throw new ForbiddenError('this needs an admin');
  return identity;
}

import type { Context, Next } from 'koa';
import { authenticateKey } from '../app/keys/authenticate-key.ts';
import { forwardAuthIdentity, type Identity } from '../domain/auth.ts';
import { UnauthenticatedError } from '../domain/errors.ts';
import type { ApiContext } from './context.ts';
import { inCidrs, isLoopback } from './ip.ts';

/**
 * Who sent a request, resolved once per request by the `authentication` middleware and
 * kept in `ctx.state.auth`. Nothing is refused there: each route asks for the credential its
 * plane takes (`requireKey`, `requireUser`) and hands the identity to a use case (app/),
 * which decides what that identity may do.
 */
export type Authentication = {
  /** Did the request send `Authorization: Bearer …` (an API key, or an MCP token at /mcp)? */
  readonly bearer: boolean;
  /** The bearer token as an API key: its identity, or why it is not one (answered when a route asks). */
  readonly key?: { readonly identity: Identity } | { readonly refused: unknown };
  /** The signed-in person: a forward-auth user from a trusted proxy, or the local admin. */
  readonly user?: string;
};

/** What the authentication middleware adds to koa's `ctx.state`. */
export type AuthState = { auth?: Authentication };

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

async function resolve(api: ApiContext, ctx: Context): Promise<Authentication> {
  const user = forwardAuthUser(api, ctx);
  const token = bearer(ctx);
  if (token === undefined) return { bearer: false, user };
  let identity: Identity | undefined;
  try {
    identity = await authenticateKey(api.deps, token);
  } catch (err) {
    // A failed lookup is the answer of the routes that need the key, not of every route.
    return { bearer: true, key: { refused: err }, user };
  }
  if (!identity) return { bearer: true, key: { refused: new UnauthenticatedError('unknown, expired or revoked API key') }, user };
  if (identity.keyId !== undefined) api.keyUsed(identity.keyId);
  return { bearer: true, key: { identity }, user };
}

/**
 * The request's authentication: the one the middleware resolved, or (on a router mounted
 * without it) resolved now and kept, so a key is looked up and its use recorded once per request.
 */
export async function authenticationOf(api: ApiContext, ctx: Context): Promise<Authentication> {
  const state = ctx.state as AuthState;
  state.auth ??= await resolve(api, ctx);
  return state.auth;
}

/** Resolves who sent the request into `ctx.state.auth`, in front of every apex route; never refuses. */
export function authentication(api: ApiContext) {
  return async (ctx: Context, next: Next): Promise<void> => {
    await authenticationOf(api, ctx);
    return next();
  };
}

/** The signed-in person of the request (forward-auth user or local admin), if any. */
export function signedInUser(api: ApiContext, ctx: Context): string | undefined {
  return (ctx.state as AuthState).auth?.user ?? forwardAuthUser(api, ctx);
}

/** The key identity of the request; undefined without a bearer token, 401 for one that is not a valid key. */
function keyOf(auth: Authentication): Identity | undefined {
  if (!auth.key) return undefined;
  if ('refused' in auth.key) throw auth.key.refused;
  return auth.key.identity;
}

/** Ingest plane: API keys only (MCP connections use their own tokens at /mcp). */
export async function requireKey(api: ApiContext, ctx: Context): Promise<Identity> {
  const identity = keyOf(await authenticationOf(api, ctx));
  if (!identity) throw new UnauthenticatedError('an API key is required: Authorization: Bearer key_…');
  return identity;
}

/**
 * Management plane: a forward-auth user from a trusted proxy, or any valid key
 * (an admin key acts as Admin, a scoped key as a Viewer).
 */
export async function requireUser(api: ApiContext, ctx: Context): Promise<Identity> {
  const auth = await authenticationOf(api, ctx);
  const key = keyOf(auth);
  if (key) return key.principal.kind === 'admin' ? key : { ...key, principal: { kind: 'viewer' } };
  if (auth.user) return forwardAuthIdentity(auth.user, api.config.adminUsers);
  throw new UnauthenticatedError('sign in through the portal proxy or send an API key');
}

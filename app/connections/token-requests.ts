import type { Identity } from '../../domain/auth.ts';
import { credentialConnection, issueTokens, type IssuedTokens } from '../../domain/connection/credentials.ts';
import { tokenRefusal, type ConnectionCommand, type GrantRefusal } from '../../domain/connection/decide.ts';
import type { ConnectionState } from '../../domain/connection/state.ts';
import { connectionCommands } from '../aggregates.ts';
import type { AppDeps } from '../deps.ts';

export type TokenTtl = { readonly accessMs: number; readonly refreshMs: number };
export type TokenOutcome = { ok: true; tokens: IssuedTokens; connection: ConnectionState } | { ok: false; refusal: GrantRefusal };
type TokenCommand = Extract<ConnectionCommand, { type: 'RedeemCode' | 'RefreshTokens' }>;

/**
 * Runs a token-endpoint command on the connection named by the presented credential. The
 * pair is issued before deciding (the decider stays pure); the refusal, if any, is judged on
 * the very state the command was decided on, so a replay that revoked the connection is
 * answered as refused.
 */
async function onConnection(deps: AppDeps, identity: Identity, id: string, ttl: TokenTtl, command: (tokens: IssuedTokens) => TokenCommand): Promise<TokenOutcome> {
  const tokens = issueTokens(id, deps.now(), ttl);
  const issued = command(tokens);
  const { before, state } = await connectionCommands(deps).handle(id, identity.actor, issued);
  const refusal = tokenRefusal(issued, before);
  if (refusal) return { ok: false, refusal };
  return { ok: true, tokens, connection: state! };
}

export type RedeemCodeInput = { readonly code: string; readonly verifier: string; readonly clientId: string; readonly redirectUri: string; readonly resource?: string };

/**
 * `grant_type=authorization_code` (OAuth 2.1 §4.1.3): checks the code and the PKCE verifier,
 * issues the first token pair. A public client authenticates with its id and the verifier;
 * the endpoint acts as the system.
 */
export async function redeemCode(deps: AppDeps, identity: Identity, input: RedeemCodeInput & { readonly ttl: TokenTtl }): Promise<TokenOutcome> {
  const id = credentialConnection('code', input.code);
  if (!id) return { ok: false, refusal: { error: 'invalid_grant', description: 'unknown authorization code' } };
  const { ttl, ...rest } = input;
  const now = deps.now();
  return onConnection(deps, identity, id, ttl, (tokens) => ({ type: 'RedeemCode', ...rest, now, tokens }));
}

export type RefreshTokensInput = { readonly refreshToken: string; readonly clientId: string; readonly resource?: string };

/** `grant_type=refresh_token`: rotates the pair; a replayed old refresh token revokes the connection. */
export async function refreshTokens(deps: AppDeps, identity: Identity, input: RefreshTokensInput & { readonly ttl: TokenTtl }): Promise<TokenOutcome> {
  const id = credentialConnection('refresh', input.refreshToken);
  if (!id) return { ok: false, refusal: { error: 'invalid_grant', description: 'unknown refresh token' } };
  const { ttl, ...rest } = input;
  const now = deps.now();
  return onConnection(deps, identity, id, ttl, (tokens) => ({ type: 'RefreshTokens', ...rest, now, tokens }));
}

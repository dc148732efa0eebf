import { NotFoundError } from '../../domain/errors.ts';
import type { Actor } from '../../domain/events.ts';
import { credentialConnection, isConnectionId, issueTokens, type IssuedTokens } from '../../domain/connection/credentials.ts';
import { decideGrant, decideRedeem, decideRefresh, decideRevoke, decideUse, type GrantInput, type GrantRefusal, type TokenDecision } from '../../domain/connection/decide.ts';
import type { ConnectionState } from '../../domain/connection/state.ts';
import { isMetadataDocumentClientId } from '../../domain/oauth-client/client-id.ts';
import { decideClientUse } from '../../domain/oauth-client/decide.ts';
import type { ConnectionDoc } from '../../projections/documents.ts';
import { projectConnection } from '../../projections/project.ts';
import { connectionCommands, oauthClientCommands } from '../aggregates.ts';
import type { CycleDeps } from '../command.ts';

export type TokenTtl = { readonly accessMs: number; readonly refreshMs: number };

/**
 * The consent: marks the client used (first consent only; refused when the client is
 * unknown or its unused registration expired), then creates the connection with its
 * one-time authorization code (only its hash is stored). The client's stream is written
 * first, so a granted connection always implies `ClientUsed`, and its expected revision
 * settles a race with the expiry job either way: expired first → this consent is refused;
 * used first → the job leaves the client alone.
 */
export async function grantConnection(deps: CycleDeps, actor: Actor, input: Omit<GrantInput, 'now'>): Promise<ConnectionDoc> {
  const now = deps.now();
  // A metadata-document client has no registration to mark used (or to expire): the
  // authorization endpoint has just fetched and checked its document.
  if (!isMetadataDocumentClientId(input.clientId)) {
    await oauthClientCommands(deps).handle(input.clientId, actor, (state) => decideClientUse(state, { clientId: input.clientId, connectionId: input.id, now }));
  }
  const { events } = await connectionCommands(deps).handle(input.id, actor, (state) => decideGrant(state, { ...input, now }));
  // The connection as the read model shows it, from the events just appended (the stream was new).
  return events.reduce<ConnectionDoc | null>(projectConnection, null)!;
}

export type TokenOutcome = { ok: true; tokens: IssuedTokens; connection: ConnectionState } | { ok: false; refusal: GrantRefusal };

/** Runs a token-endpoint decision on the connection named by the presented credential. */
async function onConnection(
  deps: CycleDeps,
  id: string,
  decide: (state: ConnectionState | null, tokens: IssuedTokens) => TokenDecision,
  ttl: TokenTtl,
): Promise<TokenOutcome> {
  const tokens = issueTokens(id, deps.now(), ttl);
  let refusal: GrantRefusal | undefined;
  const { state } = await connectionCommands(deps).handle(id, { kind: 'system', name: 'oauth-token' }, (current) => {
    const decision = decide(current, tokens);
    refusal = decision.refusal;
    return decision.events;
  });
  if (refusal) return { ok: false, refusal };
  return { ok: true, tokens, connection: state! };
}

/** `grant_type=authorization_code`: checks the code and PKCE verifier, issues the first token pair. */
export async function redeemCode(
  deps: CycleDeps,
  ttl: TokenTtl,
  input: { code: string; verifier: string; clientId: string; redirectUri: string; resource?: string },
): Promise<TokenOutcome> {
  const id = credentialConnection('code', input.code);
  if (!id) return { ok: false, refusal: { error: 'invalid_grant', description: 'unknown authorization code' } };
  const now = deps.now();
  return onConnection(deps, id, (state, tokens) => decideRedeem(state, { ...input, now, tokens }), ttl);
}

/** `grant_type=refresh_token`: rotates the pair; a replayed old refresh token revokes the connection. */
export async function refreshConnection(
  deps: CycleDeps,
  ttl: TokenTtl,
  input: { refreshToken: string; clientId: string; resource?: string },
): Promise<TokenOutcome> {
  const id = credentialConnection('refresh', input.refreshToken);
  if (!id) return { ok: false, refusal: { error: 'invalid_grant', description: 'unknown refresh token' } };
  const now = deps.now();
  return onConnection(deps, id, (state, tokens) => decideRefresh(state, { ...input, now, tokens }), ttl);
}

/** Revokes a connection; its tokens are refused by the very next request once this returns. */
export async function revokeConnection(deps: CycleDeps, actor: Actor, id: string, reason = 'revoked'): Promise<void> {
  if (!isConnectionId(id)) throw new NotFoundError(`no active connection ${JSON.stringify(id)}`);
  await connectionCommands(deps).handle(id, actor, (state) => decideRevoke(state, { id, reason }));
}

/** Records that a connection's access token authorized a request; callers coalesce (host/usage-recorder.ts). */
export async function recordConnectionUse(deps: CycleDeps, id: string, at: Date): Promise<void> {
  await connectionCommands(deps).handle(id, { kind: 'system', name: 'connection-usage' }, (state) => decideUse(state, { id, at }));
}

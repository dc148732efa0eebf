import { ConflictError, NotFoundError } from '../errors.ts';
import type { Actor, OAuthClientEvent, Recorded } from '../events.ts';
import { credentialConnection, isConnectionId, issueTokens, type IssuedTokens } from '../connection/credentials.ts';
import { decideGrant, decideRedeem, decideRefresh, decideRevoke, decideUse, type GrantInput, type GrantRefusal, type TokenDecision } from '../connection/decide.ts';
import { evolveConnection, foldConnection, type ConnectionState } from '../connection/state.ts';
import { decideClientUse, decideExpireClient, decideRegisterClient, UNUSED_CLIENT_TTL_MS } from '../oauth-client/decide.ts';
import { evolveClient, foldClient, type ClientState } from '../oauth-client/state.ts';
import { connectionStream, oauthClientStream } from '../streams.ts';
import type { OAuthClientDoc } from '../../projections/documents.ts';
import { runCommand } from './append.ts';
import type { CommandDeps } from './deps.ts';

type Deps = Pick<CommandDeps, 'events' | 'waitForProjection' | 'now' | 'readModel'>;
export type TokenTtl = { readonly accessMs: number; readonly refreshMs: number };

const evolveClientWith = (state: ClientState, events: readonly Recorded[]): ClientState =>
  events.reduce((s, e) => evolveClient(s, e as Recorded<OAuthClientEvent>), state);

/** Records a dynamically registered OAuth client (RFC 7591); its id is random, so the stream is new. */
export async function registerOAuthClient(
  deps: Deps,
  client: { clientId: string; name: string; redirectUris: readonly string[]; clientUri?: string },
): Promise<OAuthClientDoc> {
  const actor: Actor = { kind: 'system', name: 'oauth-registration' };
  const now = deps.now();
  const { result } = await runCommand(
    deps,
    oauthClientStream(client.clientId),
    actor,
    foldClient,
    (state) => ({
      events: decideRegisterClient(state, { ...client, now }),
      result: (): OAuthClientDoc => ({ ...client, registeredAt: now.toISOString(), unusedExpiresAt: new Date(now.getTime() + UNUSED_CLIENT_TTL_MS).toISOString() }),
    }),
    evolveClientWith,
  );
  return result;
}

/**
 * The consent: marks the client used (first consent only; refused when the client is
 * unknown or its unused registration expired), then creates the connection with its
 * one-time authorization code (only its hash is stored). The client's stream is written
 * first, so a granted connection always implies `ClientUsed`, and its expected revision
 * settles a race with the expiry job either way: expired first → this consent is refused;
 * used first → the job leaves the client alone.
 */
export async function grantConnection(deps: Deps, actor: Actor, input: Omit<GrantInput, 'now'>): Promise<ConnectionState> {
  const now = deps.now();
  await runCommand(
    deps,
    oauthClientStream(input.clientId),
    actor,
    foldClient,
    (state) => ({ events: decideClientUse(state, { clientId: input.clientId, connectionId: input.id, now }), result: () => undefined }),
    evolveClientWith,
  );
  const { result } = await runCommand(
    deps,
    connectionStream(input.id),
    actor,
    foldConnection,
    (state) => ({ events: decideGrant(state, { ...input, now }), result: (d) => d! }),
    evolveConnection,
  );
  return result;
}

/** How many candidates the expiry job reads from the read model at a time. */
const EXPIRY_BATCH = 200;

/**
 * The expiry job: every OAuth client registration never used for a consent whose deadline
 * (`unusedExpiresAt`, 24 h after registering) has come by `now` is ended with
 * `ClientRegistrationExpired` (the projection then deletes its document). The read model
 * only proposes candidates; each one is decided on its own stream, so a client used in the
 * meantime is kept. Returns the expired client ids.
 */
export async function expireUnusedClients(deps: Deps, now: Date): Promise<string[]> {
  const actor: Actor = { kind: 'system', name: 'oauth-client-expiry' };
  const expired: string[] = [];
  for (;;) {
    const batch = await deps.readModel.listExpiredUnusedOAuthClients(now.toISOString(), EXPIRY_BATCH);
    let progressed = false;
    for (const candidate of batch) {
      try {
        const { appended } = await runCommand(
          deps,
          oauthClientStream(candidate.clientId),
          actor,
          foldClient,
          (state) => ({ events: decideExpireClient(state, now), result: () => undefined }),
          evolveClientWith,
        );
        if (appended > 0) {
          expired.push(candidate.clientId);
          progressed = true;
        }
      } catch (err) {
        // A consent won the race twice: the client is in use now, leave it.
        if (!(err instanceof ConflictError)) throw err;
      }
    }
    // A full batch that expired nothing would come back the same: stop rather than spin.
    if (batch.length < EXPIRY_BATCH || !progressed) return expired;
  }
}

export type TokenOutcome = { ok: true; tokens: IssuedTokens; connection: ConnectionState } | { ok: false; refusal: GrantRefusal };

/** Runs a token-endpoint decision on the connection named by the presented credential. */
async function onConnection(
  deps: Deps,
  id: string,
  decide: (state: ConnectionState | null, tokens: IssuedTokens) => TokenDecision,
  ttl: TokenTtl,
): Promise<TokenOutcome> {
  const tokens = issueTokens(id, deps.now(), ttl);
  let refusal: GrantRefusal | undefined;
  let connection: ConnectionState | null = null;
  await runCommand(
    deps,
    connectionStream(id),
    { kind: 'system', name: 'oauth-token' },
    foldConnection,
    (state) => {
      const decision = decide(state, tokens);
      refusal = decision.refusal;
      return { events: decision.events, result: (d) => void (connection = d) };
    },
    evolveConnection,
  );
  if (refusal) return { ok: false, refusal };
  return { ok: true, tokens, connection: connection! };
}

/** `grant_type=authorization_code`: checks the code and PKCE verifier, issues the first token pair. */
export async function redeemCode(
  deps: Deps,
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
  deps: Deps,
  ttl: TokenTtl,
  input: { refreshToken: string; clientId: string; resource?: string },
): Promise<TokenOutcome> {
  const id = credentialConnection('refresh', input.refreshToken);
  if (!id) return { ok: false, refusal: { error: 'invalid_grant', description: 'unknown refresh token' } };
  const now = deps.now();
  return onConnection(deps, id, (state, tokens) => decideRefresh(state, { ...input, now, tokens }), ttl);
}

/** Revokes a connection; its tokens are refused by the very next request once this returns. */
export async function revokeConnection(deps: Deps, actor: Actor, id: string, reason = 'revoked'): Promise<void> {
  if (!isConnectionId(id)) throw new NotFoundError(`no active connection ${JSON.stringify(id)}`);
  await runCommand(
    deps,
    connectionStream(id),
    actor,
    foldConnection,
    (state) => ({ events: decideRevoke(state, { id, reason }), result: () => undefined }),
    evolveConnection,
  );
}

/** Records that a connection's access token authorized a request; callers coalesce (host/usage-recorder.ts). */
export async function recordConnectionUse(deps: Deps, id: string, at: Date): Promise<void> {
  await runCommand(
    deps,
    connectionStream(id),
    { kind: 'system', name: 'connection-usage' },
    foldConnection,
    (state) => ({ events: decideUse(state, { id, at }), result: () => undefined }),
    evolveConnection,
  );
}

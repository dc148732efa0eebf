import { NotFoundError } from '../errors.ts';
import type { Actor, ConnectionEvent, Recorded } from '../events.ts';
import {
  decideGrant,
  decideRedeem,
  decideRefresh,
  evolveConnection,
  foldConnection,
  credentialConnection,
  issueTokens,
  type GrantInput,
  type GrantRefusal,
  type IssuedTokens,
} from '../connections.ts';
import { connectionStream, oauthClientStream } from '../streams.ts';
import type { ConnectionDoc, OAuthClientDoc } from '../../projections/documents.ts';
import { projectClient } from '../../projections/project.ts';
import { runCommand } from './append.ts';
import type { CommandDeps } from './deps.ts';

type Deps = Pick<CommandDeps, 'events' | 'waitForProjection' | 'now' | 'readModel'>;
export type TokenTtl = { readonly accessMs: number; readonly refreshMs: number };

const clientFold = (events: readonly Recorded[]): OAuthClientDoc | null =>
  events.reduce<OAuthClientDoc | null>((d, e) => projectClient(d, e as Recorded<ConnectionEvent>), null);

/** Records a dynamically registered OAuth client (RFC 7591); its id is random, so the stream is new. */
export async function registerOAuthClient(
  deps: Deps,
  client: { clientId: string; name: string; redirectUris: readonly string[]; clientUri?: string },
): Promise<OAuthClientDoc> {
  const actor: Actor = { kind: 'system', name: 'oauth-registration' };
  const event: ConnectionEvent = {
    type: 'ClientRegistered',
    data: { ...client, registeredAt: deps.now().toISOString() },
  };
  const { result } = await runCommand(
    deps,
    oauthClientStream(client.clientId),
    actor,
    clientFold,
    (doc) => {
      if (doc) throw new Error(`client ${client.clientId} already registered`);
      return { events: [event], result: (d) => d! };
    },
    (doc, events) => events.reduce<OAuthClientDoc | null>((d, e) => projectClient(d, e as Recorded<ConnectionEvent>), doc),
  );
  return result;
}

/** The consent: creates the connection with its one-time authorization code (only its hash is stored). */
export async function grantConnection(deps: Deps, actor: Actor, input: Omit<GrantInput, 'now'>): Promise<ConnectionDoc> {
  const now = deps.now();
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

export type TokenOutcome = { ok: true; tokens: IssuedTokens; connection: ConnectionDoc } | { ok: false; refusal: GrantRefusal };

/** Runs a token-endpoint decision on the connection named by the presented credential. */
async function onConnection(
  deps: Deps,
  id: string,
  decide: (state: ConnectionDoc | null, tokens: IssuedTokens) => { events: ConnectionEvent[]; refusal?: GrantRefusal },
  ttl: TokenTtl,
): Promise<TokenOutcome> {
  const tokens = issueTokens(id, deps.now(), ttl);
  let refusal: GrantRefusal | undefined;
  let connection: ConnectionDoc | null = null;
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
  if (!/^[a-f0-9]{32}$/.test(id)) throw new NotFoundError(`no active connection ${JSON.stringify(id)}`);
  await runCommand(
    deps,
    connectionStream(id),
    actor,
    foldConnection,
    (state) => {
      if (!state || state.revoked) throw new NotFoundError(`no active connection ${id}`);
      return { events: [{ type: 'ConnectionRevoked', data: { id, reason } }], result: () => undefined };
    },
    evolveConnection,
  );
}

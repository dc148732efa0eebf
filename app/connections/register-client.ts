import type { Identity } from '../../domain/auth.ts';
import { UNUSED_CLIENT_TTL_MS } from '../../domain/oauth-client/decide.ts';
import type { OAuthClientDoc } from '../../projections/documents.ts';
import { oauthClientCommands } from '../aggregates.ts';
import type { AppDeps } from '../deps.ts';

/** A registered OAuth client as the endpoints see it (RFC 7591 metadata and its deadline). */
export type RegisteredClient = OAuthClientDoc;

export type RegisterClientInput = { readonly clientId: string; readonly name: string; readonly redirectUris: readonly string[]; readonly clientUri?: string };

/**
 * RFC 7591 dynamic client registration: anyone may register (the endpoint bounds size and
 * rate), so the service records it as the system. The id is random, so the stream is new;
 * a registration nobody consents to within 24 hours expires (app/jobs/).
 */
export async function registerOAuthClient(deps: AppDeps, identity: Identity, input: RegisterClientInput): Promise<OAuthClientDoc> {
  const now = deps.now();
  await oauthClientCommands(deps).handle(input.clientId, identity.actor, { type: 'RegisterClient', ...input, now });
  return { ...input, registeredAt: now.toISOString(), unusedExpiresAt: new Date(now.getTime() + UNUSED_CLIENT_TTL_MS).toISOString() };
}

/** A registered client as the authorization and token endpoints look it up (undefined: unknown or expired). */
export async function findOAuthClient(deps: AppDeps, input: { readonly clientId: string }): Promise<OAuthClientDoc | undefined> {
  return deps.queries.getOAuthClient(input.clientId);
}

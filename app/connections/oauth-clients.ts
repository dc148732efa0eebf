import type { Actor } from '../../domain/events.ts';
import { UNUSED_CLIENT_TTL_MS } from '../../domain/oauth-client/decide.ts';
import type { OAuthClientDoc } from '../../projections/documents.ts';
import { oauthClientCommands } from '../aggregates.ts';
import type { CycleDeps } from '../command.ts';

/** Records a dynamically registered OAuth client (RFC 7591); its id is random, so the stream is new. */
export async function registerOAuthClient(
  deps: CycleDeps,
  client: { clientId: string; name: string; redirectUris: readonly string[]; clientUri?: string },
): Promise<OAuthClientDoc> {
  const actor: Actor = { kind: 'system', name: 'oauth-registration' };
  const now = deps.now();
  await oauthClientCommands(deps).handle(client.clientId, actor, { type: 'RegisterClient', ...client, now });
  return { ...client, registeredAt: now.toISOString(), unusedExpiresAt: new Date(now.getTime() + UNUSED_CLIENT_TTL_MS).toISOString() };
}

import type { Identity } from '../../domain/auth.ts';
import { requireAdmin } from '../authorize.ts';
import type { KeysResponse } from '../contract/key.ts';
import { keyJson } from '../contract/site-json.ts';
import type { AppDeps } from '../deps.ts';

/**
 * `GET /api/keys` (spec §5, admins): the active keys; `revoked` adds the revoked ones, with
 * when and by whom. One whose document predates that record (a MongoDB read model not yet
 * replayed) is left out as before, never shown as if live.
 */
export async function listKeys(deps: AppDeps, identity: Identity, input: { readonly revoked?: boolean } = {}): Promise<KeysResponse> {
  requireAdmin(identity);
  const keys = await deps.queries.listKeys();
  return { keys: keys.filter((k) => !k.revoked || (input.revoked && k.revokedAt !== undefined)).map(keyJson) };
}

import type { Identity } from '../../domain/auth.ts';
import { ValidationError } from '../../domain/errors.ts';
import { validateGrant } from '../../domain/grants.ts';
import { checkNewKey } from '../../domain/key/decide.ts';
import { hashToken, newKeyToken } from '../../domain/tokens.ts';
import type { KeyDoc } from '../../projections/documents.ts';
import { projectKey } from '../../projections/project.ts';
import { keyCommands } from '../aggregates.ts';
import { requireAdmin } from '../authorize.ts';
import type { CreateKeyBody, CreatedAPIKey } from '../contract/key.ts';
import { readLater, type Later } from '../contract/later.ts';
import { keyJson } from '../contract/site-json.ts';
import type { AppDeps } from '../deps.ts';
import { allocateId } from '../ids.ts';

/**
 * Issue an API key (spec §5: `POST /api/keys`, admins; `sites keys create`, the operator).
 * The plaintext token is in this answer and nowhere else: only its SHA-256 is stored. The
 * request is checked (grant targets, scope, expiry) before an id is allocated, so a refused
 * key costs no id; the request itself is read only once the caller is known to be an admin.
 */
export async function issueKey(deps: AppDeps, identity: Identity, request: Later<CreateKeyBody>): Promise<CreatedAPIKey> {
  requireAdmin(identity);
  const input = await readLater(request);
  const now = deps.now();
  const grants = (input.grants ?? []).map(validateGrant);
  // `""` means no expiry, as portals of this kind send it for an empty date field.
  const expires = input.expires_at === null || input.expires_at === '' ? undefined : input.expires_at;
  if (input.name.trim() === '') throw new ValidationError('name is required');
  const key = checkNewKey({ name: input.name.trim(), admin: input.admin === true, grants, ...(expires !== undefined ? { expiresAt: expires } : {}) }, now);
  const id = await allocateId(deps.events, 'key', identity.actor, now);
  const token = newKeyToken();
  const { events } = await keyCommands(deps).handle(id, identity.actor, { type: 'IssueKey', id, key, tokenHash: hashToken(token) });
  // The key as the read model shows it, from the events just appended (the key stream was new).
  const doc = events.reduce<KeyDoc | null>(projectKey, null);
  return { ...keyJson(doc!), key: token };
}

import { ValidationError } from '../../domain/errors.ts';
import type { Actor } from '../../domain/events.ts';
import { validateGrant } from '../../domain/grants.ts';
import { checkNewKey, decideKey, type NewKey } from '../../domain/key/decide.ts';
import { hashToken, newKeyToken } from '../../domain/tokens.ts';
import type { KeyDoc } from '../../projections/documents.ts';
import { projectKey } from '../../projections/project.ts';
import { keyCommands } from '../aggregates.ts';
import type { CommandDeps } from '../deps.ts';
import { allocateId } from '../ids.ts';

export type IssueKeyInput = { name: unknown; admin?: unknown; grants?: unknown; expires_at?: unknown };

/** Validates key creation input (API body or CLI flags) before anything is written. */
export function validateKeyInput(input: IssueKeyInput, now: Date): NewKey {
  if (typeof input.name !== 'string' || input.name.trim() === '') throw new ValidationError('name is required');
  if (input.name.length > 200) throw new ValidationError('name is longer than 200 characters');
  if (input.admin !== undefined && typeof input.admin !== 'boolean') throw new ValidationError('admin must be true or false');
  const admin = input.admin === true;
  if (input.grants !== undefined && !Array.isArray(input.grants)) throw new ValidationError('grants must be a list');
  const grants = ((input.grants as unknown[] | undefined) ?? []).map(validateGrant);
  let expiresAt: string | undefined;
  // `""` means no expiry, as portals of this kind send it for an empty date field.
  if (input.expires_at !== undefined && input.expires_at !== null && input.expires_at !== '') {
    if (typeof input.expires_at !== 'string') throw new ValidationError('expires_at must be an RFC 3339 date-time');
    expiresAt = input.expires_at;
  }
  return checkNewKey({ name: input.name.trim(), admin, grants, ...(expiresAt !== undefined ? { expiresAt } : {}) }, now);
}

/** Issues a key; the plaintext token is returned here once and never stored. */
export async function issueKey(deps: CommandDeps, actor: Actor, input: IssueKeyInput): Promise<{ key: KeyDoc; token: string }> {
  const now = deps.now();
  const key = validateKeyInput(input, now);
  const id = await allocateId(deps.events, 'key', actor, now);
  const token = newKeyToken();
  const { events } = await keyCommands(deps).handle(id, actor, (state) => decideKey({ type: 'IssueKey', id, key, tokenHash: hashToken(token) }, state));
  // The key as the read model shows it, from the events just appended (the key stream was new).
  const doc = events.reduce<KeyDoc | null>(projectKey, null);
  return { key: doc!, token };
}

/** Revokes a key; it is refused by the very next request once this returns. */
export async function revokeKey(deps: CommandDeps, actor: Actor, id: number): Promise<void> {
  await keyCommands(deps).handle(id, actor, (state) => decideKey({ type: 'RevokeKey', id }, state));
}

/** Records use of a key; callers coalesce so this is written at most once per window. */
export async function recordKeyUse(deps: CommandDeps, id: number, at: Date): Promise<void> {
  const actor: Actor = { kind: 'system', name: 'key-usage' };
  await keyCommands(deps).handle(id, actor, (state) => decideKey({ type: 'RecordKeyUse', id, at }, state));
}

import { NotFoundError, ValidationError } from '../errors.ts';
import type { Actor, KeyEvent, Recorded } from '../events.ts';
import { validateGrant, type Grant } from '../grants.ts';
import { keyStream } from '../streams.ts';
import { hashToken, newKeyToken } from '../tokens.ts';
import type { KeyDoc } from '../../projections/documents.ts';
import { projectKey } from '../../projections/project.ts';
import { runCommand } from './append.ts';
import type { CommandDeps } from './deps.ts';
import { allocateId } from './ids.ts';

export type IssueKeyInput = { name: unknown; admin?: unknown; grants?: unknown; expires_at?: unknown };

const foldKey = (events: readonly Recorded[]): KeyDoc | null =>
  events.reduce<KeyDoc | null>((doc, e) => projectKey(doc, e as Recorded<KeyEvent>), null);
const evolveKey = (doc: KeyDoc | null, events: readonly Recorded[]): KeyDoc | null =>
  events.reduce<KeyDoc | null>((d, e) => projectKey(d, e as Recorded<KeyEvent>), doc);

/** Validates key creation input (API body or CLI flags) before anything is written. */
export function validateKeyInput(input: IssueKeyInput, now: Date): { name: string; admin: boolean; grants: Grant[]; expiresAt?: string } {
  if (typeof input.name !== 'string' || input.name.trim() === '') throw new ValidationError('name is required');
  if (input.name.length > 200) throw new ValidationError('name is longer than 200 characters');
  if (input.admin !== undefined && typeof input.admin !== 'boolean') throw new ValidationError('admin must be true or false');
  const admin = input.admin === true;
  if (input.grants !== undefined && !Array.isArray(input.grants)) throw new ValidationError('grants must be a list');
  const grants = ((input.grants as unknown[] | undefined) ?? []).map(validateGrant);
  if (!admin && grants.length === 0) throw new ValidationError('a key needs admin or at least one grant');
  let expiresAt: string | undefined;
  // `""` means no expiry, as portals of this kind send it for an empty date field.
  if (input.expires_at !== undefined && input.expires_at !== null && input.expires_at !== '') {
    if (typeof input.expires_at !== 'string' || Number.isNaN(Date.parse(input.expires_at))) {
      throw new ValidationError('expires_at must be an RFC 3339 date-time');
    }
    const when = new Date(input.expires_at);
    if (when.getTime() <= now.getTime()) throw new ValidationError('expires_at must be in the future');
    expiresAt = when.toISOString();
  }
  return { name: input.name.trim(), admin, grants, ...(expiresAt ? { expiresAt } : {}) };
}

/** Issues a key; the plaintext token is returned here once and never stored. */
export async function issueKey(deps: CommandDeps, actor: Actor, input: IssueKeyInput): Promise<{ key: KeyDoc; token: string }> {
  const now = deps.now();
  const valid = validateKeyInput(input, now);
  const id = await allocateId(deps.events, 'key', actor, now);
  const token = newKeyToken();
  const event: KeyEvent = { type: 'KeyIssued', data: { id, ...valid, tokenHash: hashToken(token) } };
  const { result } = await runCommand(deps, keyStream(id), actor, foldKey, () => ({ events: [event], result: (d) => d! }), evolveKey);
  return { key: result, token };
}

/** Revokes a key; it is refused by the very next request once this returns. */
export async function revokeKey(deps: CommandDeps, actor: Actor, id: number): Promise<void> {
  await runCommand(
    deps,
    keyStream(id),
    actor,
    foldKey,
    (doc) => {
      if (!doc || doc.revoked) throw new NotFoundError(`no key ${id}`);
      return { events: [{ type: 'KeyRevoked', data: { id } }], result: () => undefined };
    },
    evolveKey,
  );
}

/** Records use of a key; callers coalesce so this is written at most once per window. */
export async function recordKeyUse(deps: CommandDeps, id: number, at: Date): Promise<void> {
  const actor: Actor = { kind: 'system', name: 'key-usage' };
  await runCommand(
    deps,
    keyStream(id),
    actor,
    foldKey,
    (doc) => ({
      events: doc && !doc.revoked ? [{ type: 'KeyUsed', data: { id, at: at.toISOString() } } as KeyEvent] : [],
      result: () => undefined,
    }),
    evolveKey,
  );
}

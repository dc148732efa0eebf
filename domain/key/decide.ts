import { NotFoundError, ValidationError } from '../errors.ts';
import type { Grant } from '../grants.ts';
import type { KeyEvent } from './events.ts';
import type { KeyState } from './state.ts';

/** A key as asked for (API body or CLI flags), its fields already well-formed; `expiresAt` as given. */
export type KeyRequest = {
  readonly name: string;
  readonly admin: boolean;
  readonly grants: readonly Grant[];
  readonly expiresAt?: string;
};

/** A key that may be issued: scoped, and expiring in the future (normalised to UTC) or never. */
export type NewKey = {
  readonly name: string;
  readonly admin: boolean;
  readonly grants: readonly Grant[];
  readonly expiresAt?: string;
};

/** The rules a new key must meet, checked before an id is allocated for it. */
export function checkNewKey(request: KeyRequest, now: Date): NewKey {
  if (!request.admin && request.grants.length === 0) throw new ValidationError('a key needs admin or at least one grant');
  let expiresAt: string | undefined;
  if (request.expiresAt !== undefined) {
    if (Number.isNaN(Date.parse(request.expiresAt))) throw new ValidationError('expires_at must be an RFC 3339 date-time');
    const when = new Date(request.expiresAt);
    if (when.getTime() <= now.getTime()) throw new ValidationError('expires_at must be in the future');
    expiresAt = when.toISOString();
  }
  return { name: request.name, admin: request.admin, grants: request.grants, ...(expiresAt ? { expiresAt } : {}) };
}

/** Commands on a key stream. The id and the token's hash come in with the command. */
export type KeyCommand =
  | { readonly type: 'IssueKey'; readonly id: number; readonly key: NewKey; readonly tokenHash: string }
  | { readonly type: 'RevokeKey'; readonly id: number }
  /**
   * Decided on the key's state (no use is recorded for a revoked key); its `KeyUsed` goes to
   * the key's usage stream, not the key's own. Callers coalesce: at most once per key per window.
   */
  | { readonly type: 'RecordKeyUse'; readonly id: number; readonly at: Date };

export function decideKey(command: KeyCommand, state: KeyState): KeyEvent[] {
  switch (command.type) {
    case 'IssueKey':
      if (state.status !== 'none') throw new Error(`key ${command.id} already exists`); // ids come from the key sequence
      return [{ type: 'KeyIssued', data: { id: command.id, ...command.key, tokenHash: command.tokenHash } }];
    case 'RevokeKey':
      if (state.status !== 'active') throw new NotFoundError(`no key ${command.id}`);
      return [{ type: 'KeyRevoked', data: { id: command.id } }];
    case 'RecordKeyUse':
      return state.status === 'active' ? [{ type: 'KeyUsed', data: { id: command.id, at: command.at.toISOString() } }] : [];
    default: {
      const never: never = command;
      return never;
    }
  }
}

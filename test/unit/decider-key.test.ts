/**
 * Decider specs of the key aggregate: given the key stream's events, when a command, then
 * the events (or the error). A key is issued once, revoked once, and its use is recorded
 * only while it is active.
 */
import { describe, it } from 'vitest';
import { NotFoundError } from '../../domain/errors.ts';
import type { KeyEvent } from '../../domain/events.ts';
import { keyDecider } from '../../domain/key/decide.ts';
import { deciderSpec } from '../support/decider-spec.ts';

const spec = deciderSpec(keyDecider);
const key = { name: 'ci', admin: false, grants: [{ kind: 'group' as const, target: 'docs', permissions: ['publish' as const] }] };
const issued: KeyEvent = { type: 'KeyIssued', data: { id: 3, ...key, tokenHash: 'h'.repeat(64) } };
const revoked: KeyEvent = { type: 'KeyRevoked', data: { id: 3 } };
const AT = new Date('2026-05-01T10:00:00.000Z');

describe('key decider', () => {
  it('issues a key with the id and token hash it was given; a second issue of one id is a bug', () => {
    spec.given().when({ type: 'IssueKey', id: 3, key, tokenHash: 'h'.repeat(64) }).then([issued]);
    spec.given(issued).when({ type: 'IssueKey', id: 3, key, tokenHash: 'h'.repeat(64) }).thenThrows(/already exists/);
  });

  it('revokes an active key once; a revoked or unknown key is not found', () => {
    spec.given(issued).when({ type: 'RevokeKey', id: 3 }).then([revoked]);
    spec.given(issued, revoked).when({ type: 'RevokeKey', id: 3 }).thenThrows(NotFoundError);
    spec.given().when({ type: 'RevokeKey', id: 3 }).thenThrows(NotFoundError);
  });

  it('records use only while the key is active', () => {
    spec.given(issued).when({ type: 'RecordKeyUse', id: 3, at: AT }).then([{ type: 'KeyUsed', data: { id: 3, at: AT.toISOString() } }]);
    spec.given(issued, revoked).when({ type: 'RecordKeyUse', id: 3, at: AT }).then([]);
    spec.given().when({ type: 'RecordKeyUse', id: 3, at: AT }).then([]);
  });
});

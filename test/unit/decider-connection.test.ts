import { describe, expect, it } from 'vitest';
import { checkAccessToken } from '../../domain/connection/access.ts';
import { credentialConnection, issueTokens, newConnectionId, newCredential, s256 } from '../../domain/connection/credentials.ts';
import { connectionDecider, decideConnection, tokenRefusal, type ConnectionCommand, type RedeemInput, type RefreshInput } from '../../domain/connection/decide.ts';
import type { ConnectionState as ConnectionDoc } from '../../domain/connection/state.ts';
import type { ConnectionEvent } from '../../domain/events.ts';
import { deciderSpec } from '../support/decider-spec.ts';

const RESOURCE = 'http://localhost:8080/mcp';
const T0 = new Date('2026-11-21T10:00:00Z');
const TTL = { accessMs: 3_600_000, refreshMs: 30 * 86_400_000 };
const at = (ms: number) => new Date(T0.getTime() + ms);

const apply = (doc: ConnectionDoc | null, events: readonly ConnectionEvent[], when = T0): ConnectionDoc | null =>
  events.reduce((s, e) => connectionDecider.evolve(s, { ...e, meta: { at: when.toISOString() } }), doc);

/** A token-endpoint command decided on a state: its events and the refusal the endpoint answers with. */
function decideToken(command: Extract<ConnectionCommand, { type: 'RedeemCode' | 'RefreshTokens' }>, state: ConnectionDoc | null) {
  return { events: decideConnection(command, state), refusal: tokenRefusal(command, state) };
}
const decideRedeem = (state: ConnectionDoc | null, input: RedeemInput) => decideToken({ type: 'RedeemCode', ...input }, state);
const decideRefresh = (state: ConnectionDoc | null, input: RefreshInput) => decideToken({ type: 'RefreshTokens', ...input }, state);

/** Given a granted connection: the code, verifier and state. */
function granted() {
  const id = newConnectionId();
  const code = newCredential('code', id);
  const verifier = 'v'.repeat(50);
  const doc = apply(null, decideConnection({ type: 'GrantConnection', id, clientId: 'c1', clientName: 'Agent', user: 'admin', grants: [{ kind: 'group', target: 'mcp', permissions: ['publish'] }], resource: RESOURCE, code, challenge: s256(verifier), redirectUri: 'http://127.0.0.1/cb', now: T0 }, null))!;
  return { id, code, verifier, doc };
}
const redeem = (doc: ConnectionDoc, code: string, verifier: string, now = at(1000), extra: Partial<RedeemInput> = {}) =>
  decideRedeem(doc, { code, verifier, clientId: 'c1', redirectUri: 'http://127.0.0.1/cb', now, tokens: issueTokens(doc.id, now, TTL), ...extra });

describe('connection decider', () => {
  it('credentials carry the connection id and nothing parses as another kind', () => {
    const id = newConnectionId();
    expect(credentialConnection('access', newCredential('access', id))).toBe(id);
    expect(credentialConnection('refresh', newCredential('access', id))).toBeUndefined();
    expect(credentialConnection('access', `mcpa_${id}.short`)).toBeUndefined();
    expect(credentialConnection('access', `mcpa_../x.${'a'.repeat(43)}`)).toBeUndefined();
  });

  it('a granted connection stores only hashes; redeeming with the right verifier issues the first pair', () => {
    const { code, verifier, doc } = granted();
    expect(JSON.stringify(doc)).not.toContain(code);
    const d = redeem(doc, code, verifier);
    expect(d.refusal).toBeUndefined();
    const after = apply(doc, d.events)!;
    expect(after.code?.redeemed).toBe(true);
    expect(after.accessTokenHash).toMatch(/^[a-f0-9]{64}$/);
  });

  it('refuses a wrong verifier, another client, another redirect URI, another resource, an expired code', () => {
    const { code, verifier, doc } = granted();
    expect(redeem(doc, code, 'w'.repeat(50)).refusal?.error).toBe('invalid_grant');
    expect(redeem(doc, code, verifier, at(1000), { clientId: 'c2' }).refusal?.error).toBe('invalid_grant');
    expect(redeem(doc, code, verifier, at(1000), { redirectUri: 'http://127.0.0.1/other' }).refusal?.error).toBe('invalid_grant');
    expect(redeem(doc, code, verifier, at(1000), { resource: 'https://other.example/mcp' }).refusal?.error).toBe('invalid_target');
    expect(redeem(doc, code, verifier, at(61_000)).refusal?.error).toBe('invalid_grant');
    for (const r of [redeem(doc, code, 'w'.repeat(50)), redeem(doc, code, verifier, at(61_000))]) expect(r.events).toEqual([]);
  });

  it('a second redemption revokes the connection', () => {
    const { code, verifier, doc } = granted();
    const once = apply(doc, redeem(doc, code, verifier).events)!;
    const twice = redeem(once, code, verifier);
    expect(twice.refusal).toMatchObject({ error: 'invalid_grant', revoke: 'authorization code reused' });
    expect(twice.events).toEqual([{ type: 'ConnectionRevoked', data: { id: once.id, reason: 'authorization code reused' } }]);
  });

  it('refresh rotates; the old refresh token replayed revokes; an expired one is refused', () => {
    const { code, verifier, doc } = granted();
    const first = issueTokens(doc.id, at(1000), TTL);
    const live = apply(doc, decideRedeem(doc, { code, verifier, clientId: 'c1', redirectUri: 'http://127.0.0.1/cb', now: at(1000), tokens: first }).events)!;
    const second = issueTokens(doc.id, at(2000), TTL);
    const r = decideRefresh(live, { refreshToken: first.refreshToken, clientId: 'c1', now: at(2000), tokens: second });
    expect(r.refusal).toBeUndefined();
    const rotated = apply(live, r.events)!;
    expect(checkAccessToken(rotated, second.accessToken, RESOURCE, at(3000)).ok).toBe(true);
    expect(checkAccessToken(rotated, first.accessToken, RESOURCE, at(3000)).ok).toBe(false);
    const replay = decideRefresh(rotated, { refreshToken: first.refreshToken, clientId: 'c1', now: at(3000), tokens: issueTokens(doc.id, at(3000), TTL) });
    expect(replay.refusal?.revoke).toBe('refresh token reused');
    expect(decideRefresh(rotated, { refreshToken: second.refreshToken, clientId: 'c1', now: at(TTL.refreshMs + 3000), tokens: second }).refusal?.description).toMatch(/expired/);
  });

  it('an access token is refused when expired, revoked, or bound to another resource', () => {
    const { code, verifier, doc } = granted();
    const tokens = issueTokens(doc.id, at(1000), TTL);
    const live = apply(doc, decideRedeem(doc, { code, verifier, clientId: 'c1', redirectUri: 'http://127.0.0.1/cb', now: at(1000), tokens }).events)!;
    expect(checkAccessToken(live, tokens.accessToken, RESOURCE, at(2000))).toMatchObject({ ok: true });
    expect(checkAccessToken(live, tokens.accessToken, RESOURCE, at(TTL.accessMs + 1000))).toEqual({ ok: false, reason: 'the access token has expired' });
    expect(checkAccessToken(live, tokens.accessToken, 'https://other.example/mcp', at(2000))).toMatchObject({ ok: false, reason: expect.stringMatching(/another resource/) });
    const revoked = apply(live, [{ type: 'ConnectionRevoked', data: { id: live.id, reason: 'admin' } }])!;
    expect(checkAccessToken(revoked, tokens.accessToken, RESOURCE, at(2000))).toEqual({ ok: false, reason: 'the connection was revoked' });
    expect(checkAccessToken(live, tokens.refreshToken, RESOURCE, at(2000)).ok).toBe(false);
  });
});

describe('the connection decider (spec form)', () => {
  const spec = deciderSpec(connectionDecider, T0.toISOString());
  const granted: ConnectionEvent = {
    type: 'ConnectionGranted',
    data: { id: 'x1', clientId: 'c1', clientName: 'Agent', user: 'admin', grants: [], refreshTokenHash: '', resource: RESOURCE },
  };
  it('revokes an active connection once; a revoked or unknown one is not found', () => {
    spec.given(granted).when({ type: 'RevokeConnection', id: 'x1', reason: 'by admin' }).then([{ type: 'ConnectionRevoked', data: { id: 'x1', reason: 'by admin' } }]);
    spec.given(granted, { type: 'ConnectionRevoked', data: { id: 'x1', reason: 'by admin' } }).when({ type: 'RevokeConnection', id: 'x1', reason: 'again' }).thenThrows(/no active connection/);
    spec.given().when({ type: 'RevokeConnection', id: 'x1', reason: 'r' }).thenThrows(/no active connection/);
  });
  it('records use only while the connection is active', () => {
    spec.given(granted).when({ type: 'RecordConnectionUse', id: 'x1', at: at(5) }).then([{ type: 'ConnectionUsed', data: { id: 'x1', at: at(5).toISOString() } }]);
    spec.given(granted, { type: 'ConnectionRevoked', data: { id: 'x1', reason: 'r' } }).when({ type: 'RecordConnectionUse', id: 'x1', at: at(5) }).then([]);
  });
  it('a refused token request decides nothing, unless it is a replay', () => {
    const tokens = issueTokens('x1', at(1), TTL);
    spec.given(granted).when({ type: 'RefreshTokens', refreshToken: tokens.refreshToken, clientId: 'c1', now: at(1), tokens }).then([]);
  });
});

import { describe, expect, it } from 'vitest';
import { StreamConflictError } from '../../domain/errors.ts';
import { openEsdbEventStore } from '../../host/eventstore/esdb.ts';
import { comparePositions, encodePosition, isAfter, parsePosition } from '../../host/eventstore/esdb-position.ts';
import { pageWithoutSplit } from '../../host/eventstore/page.ts';
import { used } from './eventstore/fixtures.ts';

// The pieces of the adapters that run without a server: the page cut shared by both,
// the EventStoreDB position encoding, and how the EventStoreDB adapter behaves when its
// server is unreachable (the state it is in while a server restarts).
describe('pageWithoutSplit', () => {
  const commit = (s: string) => s[0]; // 'a1' belongs to append 'a'
  it('keeps a short read whole', () => {
    expect(pageWithoutSplit(['a1', 'a2'], 3, commit)).toEqual(['a1', 'a2']);
  });
  it('cuts at the limit when the next item starts another append', () => {
    expect(pageWithoutSplit(['a1', 'b1', 'b2', 'c1'], 3, commit)).toEqual(['a1', 'b1', 'b2']);
  });
  it('leaves an append cut by the limit for the next page', () => {
    expect(pageWithoutSplit(['a1', 'b1', 'b2', 'b3'], 3, commit)).toEqual(['a1']);
  });
  it('splits an append only when it alone is larger than the limit', () => {
    expect(pageWithoutSplit(['b1', 'b2', 'b3', 'b4'], 3, commit)).toEqual(['b1', 'b2', 'b3']);
  });
});

describe('EventStoreDB positions', () => {
  it('round-trips "<commit>/<prepare>" including values beyond 2^53', () => {
    const p = { commit: 18446744073709551000n, prepare: 18446744073709551001n };
    expect(encodePosition(p)).toBe('18446744073709551000/18446744073709551001');
    expect(parsePosition(encodePosition(p))).toEqual(p);
    expect(parsePosition(undefined)).toBeUndefined();
  });
  it('orders by commit, then prepare', () => {
    expect(comparePositions({ commit: 5n, prepare: 9n }, { commit: 6n, prepare: 1n })).toBe(-1);
    expect(comparePositions({ commit: 6n, prepare: 7n }, { commit: 6n, prepare: 5n })).toBe(1);
    expect(isAfter({ commit: 1n, prepare: 1n }, undefined)).toBe(true);
    expect(isAfter({ commit: 1n, prepare: 1n }, { commit: 1n, prepare: 1n })).toBe(false);
  });
  it('rejects positions of another adapter', () => {
    expect(() => parsePosition('42')).toThrow(/not an EventStoreDB position/);
    expect(() => parsePosition('1/x')).toThrow(/not an EventStoreDB position/);
  });
});

describe('EventStoreDB adapter without a reachable server', () => {
  it('fails calls with the transport error (never a conflict), still times out waits, and closes', async () => {
    const store = openEsdbEventStore('esdb://127.0.0.1:1?tls=false');
    const appended = await store.append('key-1', [used(1)], -1).catch((e: unknown) => e);
    expect(appended).toBeInstanceOf(Error);
    expect(appended).not.toBeInstanceOf(StreamConflictError);
    await expect(store.readStream('key-1')).rejects.toThrow(/UNAVAILABLE|unavailable|ECONNREFUSED/i);
    await expect(store.readAll(undefined, 10)).rejects.toThrow();
    const start = performance.now();
    await store.waitForEvents(undefined, 300);
    expect(performance.now() - start).toBeGreaterThanOrEqual(250);
    await store.close();
    await expect(store.readAll(undefined, 1)).rejects.toThrow(/closed/);
  });
});

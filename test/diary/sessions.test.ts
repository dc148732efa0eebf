/**
 * The 2025-era session table on its own, with fake transports and fake timers:
 * use order, eviction of the least recently used idle session, busy sessions
 * left alone, idle expiry, and no timer left behind.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createSessionTable, type SessionTable } from '../../mcp/diary/sessions.ts';

type Fake = { name: string; closed: number; close(): Promise<void> };
const fake = (name: string): Fake => ({ name, closed: 0, close() { this.closed++; return Promise.resolve(); } });

let logs: string[];
let table: SessionTable<Fake>;
const open = (id: string): Fake => {
  expect(table.makeRoom()).toBe(true);
  const t = fake(id);
  table.add(id, t);
  return t;
};
const ok = (): Promise<Response> => Promise.resolve(new Response('done'));

beforeEach(() => {
  vi.useFakeTimers();
  logs = [];
  table = createSessionTable<Fake>({ idleMs: 1000, maxSessions: 3 }, (l) => logs.push(l));
});
afterEach(() => vi.useRealTimers());

describe('session table', () => {
  it('holds at most maxSessions, evicting the least recently used idle one', async () => {
    const [a, b, c] = ['a', 'b', 'c'].map(open);
    await (await table.serve(table.get('a')!, 'POST', ok)).text(); // a is now the most recent
    open('d');
    expect(table.size()).toBe(3);
    expect(table.get('b')).toBeUndefined();
    expect([a.closed, b.closed, c.closed]).toEqual([0, 1, 0]);
    expect(logs.join('\n')).toMatch(/session limit \(3\) reached/);
    open('e');
    expect(table.get('c')).toBeUndefined();
    expect(c.closed).toBe(1);
  });

  it('never evicts a session whose response is still streaming; full of busy ones, it refuses', async () => {
    table = createSessionTable<Fake>({ idleMs: 1000, maxSessions: 1 }, (l) => logs.push(l));
    const a = open('a');
    const res = await table.serve(table.get('a')!, 'POST', ok); // body not read yet: a tool call in progress
    expect(table.makeRoom()).toBe(false);
    vi.advanceTimersByTime(5000); // nor does it expire mid-call
    expect(a.closed).toBe(0);
    await res.text();
    expect(table.makeRoom()).toBe(true);
    expect(a.closed).toBe(1);
  });

  it('a cancelled response (the client went away) ends the busy span too', async () => {
    table = createSessionTable<Fake>({ idleMs: 1000, maxSessions: 1 }, (l) => logs.push(l));
    open('a');
    const res = await table.serve(table.get('a')!, 'POST', () => Promise.resolve(new Response(new ReadableStream())));
    expect(table.makeRoom()).toBe(false);
    await res.body!.cancel();
    expect(table.makeRoom()).toBe(true);
  });

  it('a standing GET stream does not keep an idle session alive', async () => {
    const a = open('a');
    await table.serve(table.get('a')!, 'GET', () => Promise.resolve(new Response(new ReadableStream())));
    vi.advanceTimersByTime(1001);
    expect(a.closed).toBe(1);
    expect(table.size()).toBe(0);
  });

  it('expires a session idle for idleMs; each request restarts its clock', async () => {
    const a = open('a');
    const b = open('b');
    for (let i = 0; i < 5; i++) {
      vi.advanceTimersByTime(600);
      await (await table.serve(table.get('b')!, 'POST', ok)).text();
    }
    expect(a.closed).toBe(1);
    expect(b.closed).toBe(0);
    expect(table.get('a')).toBeUndefined();
    vi.advanceTimersByTime(1001);
    expect(b.closed).toBe(1);
    expect(table.size()).toBe(0);
  });

  it('expiry waits for a call in progress, then gives a full idle period', async () => {
    const a = open('a');
    const res = await table.serve(table.get('a')!, 'POST', ok);
    vi.advanceTimersByTime(3000);
    await res.text();
    vi.advanceTimersByTime(900);
    expect(a.closed).toBe(0);
    vi.advanceTimersByTime(200);
    expect(a.closed).toBe(1);
  });

  it('timers are unref\'d and none is left after drop or closeAll', async () => {
    open('a');
    open('b');
    expect(table.get('a')!.timer.hasRef()).toBe(false);
    expect(vi.getTimerCount()).toBe(2);
    table.drop('a');
    expect(vi.getTimerCount()).toBe(1);
    const b = table.get('b')!.transport;
    await table.closeAll();
    expect(b.closed).toBe(1);
    expect(table.size()).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });
});

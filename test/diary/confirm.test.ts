/**
 * Confirmations of create_training_session and delete_training_target in both
 * protocol eras (client pinned to each), over stdio and Streamable HTTP:
 * accepted, declined, cancelled, and a client without the elicitation capability.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DECLINED } from '../../mcp/diary/confirm.ts';
import type { HttpEndpoint } from '../../mcp/diary/http.ts';
import { startSimulator, type DiarySim } from '../support/diary-sim/server.ts';
import { call, dataCalls, day, httpClient, httpServer, stdioClient, type Answer, type Era, type TestClient } from './helpers.ts';

let sim: DiarySim;
let endpoint: HttpEndpoint;
const clients = new Map<string, { ask: TestClient; none: TestClient }>();
const combos = ['stdio', 'http'].flatMap((t) => (['modern', 'legacy'] as Era[]).map((era) => ({ transport: t, era })));

beforeAll(async () => {
  sim = await startSimulator();
  endpoint = await httpServer(sim);
  await Promise.all(
    combos.map(async ({ transport, era }) => {
      const open = (a: Answer) => (transport === 'stdio' ? stdioClient(sim, era, a) : httpClient(endpoint.url, era, a));
      const [ask, none] = await Promise.all([open('accept'), open('none')]);
      clients.set(`${transport}/${era}`, { ask, none });
    }),
  );
}, 60_000);
afterAll(async () => {
  await Promise.all([...clients.values()].flatMap((c) => [c.ask.close(), c.none.close()]));
  await endpoint.close();
  await sim.close();
});
beforeEach(() => {
  sim.reset();
  for (const c of clients.values()) c.ask.prompts.length = 0;
});

const SESSION = { name: 'Evening run', date: day(-1), time: '19:05', duration_s: 3900 };
const SESSION_PROMPT = `Record "Evening run" as a completed session on ${day(-1)} at 19:05, lasting 1 h 5 min? It will be added to the diary and count toward the training statistics.`;
/** Writes the simulator accepted (a write refused with the session-expired 401 and retried is not one). */
const writes = () =>
  sim.log
    .filter((l) => l.host === 'flow' && l.status !== 401 && (l.path === '/api/training/create' || l.method === 'DELETE'))
    .map((l) => `${l.method} ${l.path}`);

async function newTarget(c: TestClient, name: string): Promise<number> {
  const r = await call(c, 'create_training_target', { name, date: day(9), time: '06:45', duration_s: 1200 });
  return Number(/target (\d+):/.exec(r.text)![1]);
}

describe.each(combos)('$transport, $era client', ({ transport, era }) => {
  const ask = () => clients.get(`${transport}/${era}`)!.ask;
  const none = () => clients.get(`${transport}/${era}`)!.none;

  it('pinned to the era', () => {
    const v = ask().client.getNegotiatedProtocolVersion();
    if (era === 'modern') expect(v).toBe('2026-07-28');
    else expect(v).not.toBe('2026-07-28');
  });

  it('create_training_session accepted: asks once, then writes', async () => {
    ask().answer.value = 'accept';
    const r = await call(ask(), 'create_training_session', SESSION);
    expect(r.isError, r.text).toBe(false);
    expect(r.text).toMatch(/^Logged training session "Evening run"/);
    expect(ask().prompts).toEqual([SESSION_PROMPT]);
    expect(writes()).toEqual(['POST /api/training/create']);
    expect(sim.state.sessions.size).toBe(1);
  });

  it.each(['decline', 'cancel'] as const)('create_training_session %sd: plain text, nothing written', async (answer) => {
    ask().answer.value = answer;
    const r = await call(ask(), 'create_training_session', SESSION);
    expect(r).toEqual({ isError: false, text: DECLINED });
    expect(ask().prompts).toHaveLength(1);
    expect(writes()).toEqual([]);
    expect(sim.state.sessions.size).toBe(0);
  });

  it('create_training_session without the capability runs without asking', async () => {
    const r = await call(none(), 'create_training_session', SESSION);
    expect(r.isError, r.text).toBe(false);
    expect(writes()).toEqual(['POST /api/training/create']);
  });

  it('delete_training_target accepted: the prompt names the target; read, read again, delete', async () => {
    ask().answer.value = 'accept';
    const id = await newTarget(ask(), 'Tempo "blocks"');
    sim.log.length = 0;
    const r = await call(ask(), 'delete_training_target', { target_id: id });
    expect(r).toEqual({ isError: false, text: `Deleted target ${id}.` });
    expect(ask().prompts).toEqual([
      `Permanently remove training target "Tempo \\"blocks\\"" (${day(9)}T06:45, id ${id}) from the diary? This cannot be undone.`,
    ]);
    expect(dataCalls(sim)).toEqual([`GET /api/trainingtarget/${id}`, `GET /api/trainingtarget/${id}`, `DELETE /training/target/${id}`]);
  });

  it.each(['decline', 'cancel'] as const)('delete_training_target %sd: the target stays', async (answer) => {
    ask().answer.value = answer;
    const id = await newTarget(ask(), 'Keep me');
    const r = await call(ask(), 'delete_training_target', { target_id: id });
    expect(r).toEqual({ isError: false, text: DECLINED });
    expect(sim.state.targets.has(id)).toBe(true);
    expect(writes()).toEqual([]);
  });

  it('delete_training_target without the capability deletes without asking', async () => {
    const id = await newTarget(none(), 'Gone');
    sim.log.length = 0;
    expect(await call(none(), 'delete_training_target', { target_id: id })).toEqual({ isError: false, text: `Deleted target ${id}.` });
    expect(dataCalls(sim)).toEqual([`GET /api/trainingtarget/${id}`, `DELETE /training/target/${id}`]);
  });

  it('a missing target or invalid arguments never prompt', async () => {
    ask().answer.value = 'accept';
    expect(await call(ask(), 'delete_training_target', { target_id: 99 })).toEqual({ isError: false, text: 'No target with id 99.' });
    expect((await call(ask(), 'create_training_session', { ...SESSION, time: '25:00' })).text).toMatch(/^time:/);
    expect(ask().prompts).toEqual([]);
  });

  it('a target that vanished between read and delete reads as not found', async () => {
    ask().answer.value = 'accept';
    sim.deleteMissing('400');
    const id = await newTarget(ask(), 'Racing');
    sim.failWith({ method: 'DELETE', path: `/training/target/${id}` }, 400, 'deleteError');
    expect(await call(ask(), 'delete_training_target', { target_id: id })).toEqual({ isError: false, text: `No target with id ${id}.` });
  });
});

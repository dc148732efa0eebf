/**
 * The tool contract checked through a real SDK client; run over several
 * transports and eras by tools-http.test.ts and tools-stdio.test.ts.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { DEVICE_SESSION_ID, FOREIGN_TARGET_ID } from '../support/diary-sim/fixtures.ts';
import type { DiarySim } from '../support/diary-sim/server.ts';
import { call, dataCalls, day, parsed, type TestClient } from './helpers.ts';

/** What a transport setup provides; the client answers confirmations with "accept". */
export type SuiteEnv = { sim: () => DiarySim; client: () => TestClient; timeoutMs: number };

const READ_TOOLS = [
  'get_user_info', 'list_sports', 'list_training_targets', 'get_training_target', 'get_calendar_events',
  'get_calendar_week_summary', 'get_progress_summary', 'list_training_sessions', 'get_training_session_summary',
  'get_training_session_details',
];

const TRACK = {
  name: 'Track 6x400', date: day(3), time: '18:00', sport_id: 1,
  phases: [
    { type: 'warmup', duration_s: 600, intensity: { hr_zone: 2 } },
    { type: 'repeat', reps: 6, goal: { distance_m: 400 }, intensity: { speed_zone: 5 }, recovery: { duration_s: 90 } },
    { type: 'cooldown', duration_s: 600 },
  ],
};

type Obj = Record<string, any>;

/** Registers the suite. */
export function toolSuite(env: SuiteEnv): void {
  const sim = () => env.sim();
  const c = () => env.client();
  beforeEach(() => {
    sim().reset();
    c().prompts.length = 0;
  });

  async function createTarget(args: Obj): Promise<number> {
    const r = await call(c(), 'create_training_target', args);
    expect(r.isError, r.text).toBe(false);
    const m = /^Created training target (\d+): (".*") at (\S+)\.$/.exec(r.text);
    expect(m, r.text).not.toBeNull();
    expect(JSON.parse(m![2])).toBe(args.name);
    expect(m![3]).toBe(`${args.date}T${args.time ?? '18:00'}`);
    return Number(m![1]);
  }

  describe('listing and annotations', () => {
    it('lists the fourteen tools with their hints and units', async () => {
      const { tools } = await c().client.listTools();
      const byName = new Map(tools.map((t) => [t.name, t]));
      expect([...byName.keys()].sort()).toEqual([...READ_TOOLS, 'create_training_target', 'update_training_target', 'delete_training_target', 'create_training_session'].sort());
      for (const n of READ_TOOLS) expect(byName.get(n)!.annotations?.readOnlyHint, n).toBe(true);
      expect(byName.get('delete_training_target')!.annotations?.destructiveHint).toBe(true);
      expect(byName.get('update_training_target')!.annotations?.destructiveHint).toBe(true);
      expect(byName.get('create_training_target')!.annotations?.destructiveHint).toBe(false);
      expect(byName.get('create_training_session')!.annotations?.destructiveHint).toBe(false);
      expect(byName.get('update_training_target')!.description).toMatch(/full replace/);
      expect(byName.get('delete_training_target')!.description).toMatch(/irreversible/);
      expect(byName.get('create_training_session')!.description).toMatch(/counts toward the training statistics/);
      expect(byName.get('create_training_target')!.description).toMatch(/Example: .*"reps": 6/);
      const schema = byName.get('create_training_target')!.inputSchema as Obj;
      expect(schema.required).toEqual(['name', 'date']);
      expect(JSON.stringify(schema)).not.toMatch(/"pattern"|"minimum"/);
      expect(sim().log).toHaveLength(0); // listing never touches the upstream
    });
  });

  describe('account', () => {
    it('get_user_info', async () => {
      expect(parsed(await call(c(), 'get_user_info'))).toEqual({ id: 50000001, email: 'rider@example.org', first_name: 'Sam', last_name: 'Lee', country: 'SE' });
    });
    it('list_sports passes the catalogue through', async () => {
      const s = parsed<Obj>(await call(c(), 'list_sports'));
      expect(s).toMatchObject({ 1: 'RUNNING', 2: 'CYCLING', 23: 'SWIMMING' });
    });
  });

  describe('training targets', () => {
    it('creates a VOLUME target and reads it back as stored', async () => {
      const id = await createTarget({ name: 'Easy run', date: day(2), time: '07:30', duration_s: 2700 });
      const body = JSON.parse(sim().log.find((l) => l.method === 'POST' && l.path === '/api/trainingtarget')!.body);
      expect(body).toMatchObject({ type: 'VOLUME', description: '', datetime: `${day(2)}T07:30` });
      expect(body.exerciseTargets).toEqual([{ id: null, sportId: 1, duration: '00:45:00', distance: null, calories: null, phases: [] }]);
      const back = parsed<Obj>(await call(c(), 'get_training_target', { target_id: id }));
      expect(back).toMatchObject({ type: 'VOLUME', name: 'Easy run', description: null, isUserEditable: true });
      expect(back.exerciseTargets[0]).toMatchObject({ duration: '00:45:00', distance: null, phases: [] });
    });

    it('creates a PHASED target: roll-ups, phantom fields and zones on read-back; listed with its start', async () => {
      const id = await createTarget(TRACK);
      const back = parsed<Obj>(await call(c(), 'get_training_target', { target_id: id }));
      const et = back.exerciseTargets[0];
      expect(et).toMatchObject({ duration: '00:29:00', distance: 2400 });
      expect(et.phases[1]).toMatchObject({ phaseType: 'REPEAT', repeatCount: 6 });
      expect(et.phases[1].phases[0]).toMatchObject({ name: 'Work', goalType: 'DISTANCE', distance: 400, duration: '00:00:00', intensityType: 'SPEED_ZONES', lowerZone: 5 });
      expect(et.phases[2]).toMatchObject({ name: 'Cool-down', lowerZone: 0, upperZone: 0 });
      const list = await call(c(), 'list_training_targets');
      expect(list.text).toBe(`${id}: Track 6x400 (${TRACK.date}T18:00:00.000Z)`);
      const events = parsed<Obj[]>(await call(c(), 'get_calendar_events'));
      expect(events.find((e) => e.ListItemId === id)).toMatchObject({ type: 'TRAININGTARGET', duration: 1_740_000, distance: 2400 });
      expect(sim().log.find((l) => l.path === '/training/getCalendarEvents')!.query).toMatch(/start=\d{1,2}\.\d{1,2}\.\d{4}&end=/);
    });

    it('validation errors send nothing upstream', async () => {
      const volume = await call(c(), 'create_training_target', { name: 'X', date: day(1) });
      expect(volume).toEqual({ isError: true, text: 'VOLUME targets (no phases) require duration_s or distance_m' });
      const reps = await call(c(), 'create_training_target', { ...TRACK, phases: [TRACK.phases[0], { type: 'repeat', reps: 1, goal: { distance_m: 400 } }] });
      expect(reps.isError).toBe(true);
      expect(reps.text).toMatch(/^phases\[1\]\.reps:/);
      const bad = await call(c(), 'create_training_target', { name: 'X', date: '2026-02-30', duration_s: 60 });
      expect(bad.text).toMatch(/^date:/);
      const typed = await call(c(), 'create_training_target', { name: 5, date: day(1), duration_s: 60 });
      expect(typed.isError).toBe(true);
      expect(typed.text).toMatch(/name/);
      // Spec §4: a type mismatch reads like the SDK's schema validation.
      expect(typed.text).toMatch(/^Input validation error: /);
      const missing = await call(c(), 'create_training_target', { date: day(1), duration_s: 60 });
      expect(missing.text).toMatch(/^Input validation error: .*name/);
      expect(dataCalls(sim())).toEqual([]);
    });

    it('upstream refusals: time clash, content filter, other validation, odd create response', async () => {
      await createTarget({ name: 'First', date: day(4), duration_s: 600 });
      const clash = await call(c(), 'create_training_target', { name: 'Second', date: day(4), duration_s: 600 });
      expect(clash.isError).toBe(true);
      expect(clash.text).toContain(`already has a training target at ${day(4)}T18:00`);
      sim().contentFilter('dumbbell');
      const filtered = await call(c(), 'create_training_target', { name: 'Dumbbell day', date: day(5), duration_s: 600 });
      expect(filtered.isError).toBe(true);
      expect(filtered.text).toContain('trainingSessionTarget.name');
      expect(filtered.text).toContain('Session - Dumbbell day');
      sim().failWith({ method: 'POST', path: '/api/trainingtarget' }, 400, '{"b":["x"],"a":["y","z"]}');
      const other = await call(c(), 'create_training_target', { name: 'Third', date: day(6), duration_s: 600 });
      expect(other).toEqual({ isError: true, text: 'Upstream validation failed: a: y, z; b: x' });
      sim().failWith({ method: 'POST', path: '/api/trainingtarget' }, 201, 'created!');
      const odd = await call(c(), 'create_training_target', { name: 'Fourth', date: day(7), duration_s: 600 });
      expect(odd.isError).toBe(true);
      expect(odd.text).toContain('unexpected create response');
    });

    it('list_training_targets with nothing in range', async () => {
      const r = await call(c(), 'list_training_targets', { from_date: '2026-01-01', to_date: '2026-01-31' });
      expect(r).toEqual({ isError: false, text: 'No training targets between 2026-01-01 and 2026-01-31.' });
      expect(sim().log.find((l) => l.path === '/training/getCalendarEvents')!.query).toBe('?start=1.1.2026&end=31.1.2026');
      const rev = await call(c(), 'list_training_targets', { from_date: '2026-02-01', to_date: '2026-01-31' });
      expect(rev.text).toMatch(/^from_date:/);
    });

    it('update is a full replace carrying the live exercise-target id', async () => {
      const id = await createTarget(TRACK);
      const live = parsed<Obj>(await call(c(), 'get_training_target', { target_id: id }));
      const r = await call(c(), 'update_training_target', { target_id: id, name: 'Easy instead', date: TRACK.date, distance_m: 5000 });
      const back = parsed<Obj>(r);
      expect(back).toMatchObject({ type: 'VOLUME', name: 'Easy instead', description: null });
      expect(back.exerciseTargets[0]).toMatchObject({ id: live.exerciseTargets[0].id, distance: 5000, duration: null, phases: [] });
      const post = sim().log.find((l) => l.method === 'POST' && l.path === `/api/trainingtarget/${id}`)!;
      expect(JSON.parse(post.body).exerciseTargets[0].id).toBe(live.exerciseTargets[0].id);
      const calls = dataCalls(sim()).slice(-3);
      expect(calls).toEqual([`GET /api/trainingtarget/${id}`, `POST /api/trainingtarget/${id}`, `GET /api/trainingtarget/${id}`]);
      expect(await call(c(), 'update_training_target', { target_id: 42, name: 'x', date: day(1), duration_s: 60 })).toEqual({ isError: false, text: 'No target with id 42.' });
      const before = sim().log.length;
      const invalid = await call(c(), 'update_training_target', { target_id: id, name: 'x', date: day(1) });
      expect(invalid.text).toBe('VOLUME targets (no phases) require duration_s or distance_m');
      expect(sim().log.length).toBe(before);
    });

    it('get/delete: unknown ids are normal results, foreign ids errors', async () => {
      expect(await call(c(), 'get_training_target', { target_id: 7 })).toEqual({ isError: false, text: 'No target with id 7.' });
      expect(await call(c(), 'delete_training_target', { target_id: 7 })).toEqual({ isError: false, text: 'No target with id 7.' });
      const foreign = await call(c(), 'get_training_target', { target_id: FOREIGN_TARGET_ID });
      expect(foreign.isError).toBe(true);
      expect(foreign.text).toContain('belongs to another account');
      const del = await call(c(), 'delete_training_target', { target_id: FOREIGN_TARGET_ID });
      expect(del.isError).toBe(true);
      expect(dataCalls(sim()).some((x) => x.startsWith('DELETE'))).toBe(false);
      expect((await call(c(), 'get_training_target', { target_id: 0 })).text).toMatch(/^target_id:/);
    });

    it('delete (confirmed) removes the target', async () => {
      const id = await createTarget({ name: 'Tempo', date: day(8), duration_s: 1800 });
      expect(await call(c(), 'delete_training_target', { target_id: id })).toEqual({ isError: false, text: `Deleted target ${id}.` });
      expect(sim().state.targets.has(id)).toBe(false);
      expect(dataCalls(sim()).at(-1)).toBe(`DELETE /training/target/${id}`);
      expect(sim().log.at(-1)!.xrw).toBe('XMLHttpRequest');
    });
  });

  describe('calendar and progress', () => {
    it('week summary: D.M.YYYY, one entry per week, the 45-day cap from upstream', async () => {
      sim().seedDeviceSession(day(-3));
      const weeks = parsed<unknown[]>(await call(c(), 'get_calendar_week_summary'));
      expect(weeks.length).toBeGreaterThanOrEqual(5);
      expect(weeks.every((w) => JSON.stringify(w) === '{}')).toBe(true);
      expect(JSON.parse(sim().log.at(-1)!.body).from).toMatch(/^\d{1,2}\.\d{1,2}\.\d{4}$/);
      const wide = await call(c(), 'get_calendar_week_summary', { from_date: '2026-01-01', to_date: '2026-03-02' });
      expect(wide.isError).toBe(true);
      expect(wide.text).toBe('Week summary refused by the diary (HTTP 400): Maximum week aligned range is 45, requested 60');
      expect(parsed(await call(c(), 'get_calendar_week_summary', { from_date: '2026-01-05', to_date: '2026-01-11' }))).toEqual([]);
    });

    it('progress summary totals from upstream, DD-MM-YYYY dates', async () => {
      sim().seedDeviceSession(day(-3));
      const p = parsed<Obj>(await call(c(), 'get_progress_summary', { group: 'WEEK', time_frame: '6w' }));
      expect(p).toMatchObject({ from_date: day(-90), to_date: day(0), number_of_sessions: 1, total_duration_s: 3160, total_kcal: 610, total_ascent_m: 142.66 });
      expect(p.sport_breakdown.duration[0].sportName).toBe('Running');
      const body = JSON.parse(sim().log.at(-1)!.body);
      expect(body).toEqual({ from: day(-90).split('-').reverse().join('-'), to: day(0).split('-').reverse().join('-'), group: 'WEEK', timeFrame: '6w' });
      const empty = parsed<Obj>(await call(c(), 'get_progress_summary', { from_date: '2020-01-01', to_date: '2020-01-31' }));
      expect(empty).toMatchObject({ number_of_sessions: 0, total_duration_s: 0 });
      expect(empty).not.toHaveProperty('total_ascent_m');
      const bad = await call(c(), 'get_progress_summary', { time_frame: '2w' });
      expect(bad.isError).toBe(true);
      expect(bad.text).toMatch(/time_frame/);
    });
  });

  describe('sessions', () => {
    it('logs a session, then lists and summarises it canonically', async () => {
      const r = await call(c(), 'create_training_session', { name: 'Easy run', date: day(-1), time: '07:15', duration_s: 2700, distance_m: 8000, kcal: 520, hr_avg: 148, note: 'legs ok' });
      expect(r.isError, r.text).toBe(false);
      expect(r.text).toMatch(new RegExp(`^Logged training session "Easy run" starting ${day(-1)}T07:15[+-]\\d{4} \\(2700 s\\)\\. It counts toward`));
      const wire = JSON.parse(sim().log.find((l) => l.path === '/api/training/create')!.body);
      expect(wire).toMatchObject({ sport: 1, duration: 2700, distance: 8000, hrAverage: '148', hrMax: '', kiloCalories: 520, speedAverage: null, feeling: null });
      const list = parsed<Obj[]>(await call(c(), 'list_training_sessions'));
      expect(list).toHaveLength(1);
      expect(list[0]).toMatchObject({ sport_id: 1, sport_name: 'Running', start_time: `${day(-1)}T07:15:00`, session_duration_s: 2700, distance_m: 8000, hr_avg: 148, calories: 520, note: 'legs ok', has_training_target: false, is_test: false });
      expect(dataCalls(sim()).slice(-2)).toEqual(['GET /api/account/users/current/user', 'POST /api/training/history']);
      const summary = parsed<Obj>(await call(c(), 'get_training_session_summary', { session_id: list[0].id }));
      expect(summary).toMatchObject({ id: list[0].id, name: 'Easy run', sport_id: 1, session_duration_s: 2700, distance_m: 8000, hr_avg: 148, hr_max: 0, calories: 520 });
      const details = parsed<Obj>(await call(c(), 'get_training_session_details', { session_id: list[0].id }));
      expect(details.exercises[0]).toMatchObject({ duration_s: 2700, samples: [], hr_bpm: { avg: 148 } });
    });

    it('a future start is refused by the diary', async () => {
      const r = await call(c(), 'create_training_session', { name: 'Tomorrow', date: day(2), duration_s: 600 });
      expect(r.isError).toBe(true);
      expect(r.text).toContain('rejected the session');
    });

    it('validation errors never prompt nor write', async () => {
      const r = await call(c(), 'create_training_session', { name: 'x', date: day(-1), duration_s: 0 });
      expect(r.text).toMatch(/^duration_s:/);
      expect(c().prompts).toEqual([]);
      expect(dataCalls(sim())).toEqual([]);
    });

    it('device session summary and details', async () => {
      sim().seedDeviceSession(day(-2));
      const s = parsed<Obj>(await call(c(), 'get_training_session_summary', { session_id: DEVICE_SESSION_ID }));
      expect(s).toMatchObject({ sport_id: 1, distance_m: 8725.43, session_duration_s: 3160, hr_max: 179 });
      const d = parsed<Obj>(await call(c(), 'get_training_session_details', { session_id: DEVICE_SESSION_ID }));
      expect(d.exercises[0].target.reps).toHaveLength(2);
      expect(d.exercises[0].zones.speed[0]).not.toHaveProperty('max');
      expect(await call(c(), 'get_training_session_details', { session_id: 5 })).toEqual({ isError: false, text: 'No session with id 5.' });
    });
  });

  describe('upstream trouble', () => {
    it('the session expiring mid-conversation is invisible', async () => {
      expect((await call(c(), 'get_user_info')).isError).toBe(false);
      sim().expireSessions();
      sim().log.length = 0;
      const r = await call(c(), 'list_training_sessions');
      expect(r.isError, r.text).toBe(false);
      // Silent refresh through the SSO session: no credential POST, one retry.
      expect(sim().log.filter((l) => l.host === 'auth' && l.method === 'POST')).toHaveLength(0);
      expect(dataCalls(sim())).toEqual(['GET /api/account/users/current/user', 'GET /api/account/users/current/user', 'POST /api/training/history']);
    });

    it('bad credentials give a clear authentication error', async () => {
      sim().setPassword('changed');
      const r = await call(c(), 'get_user_info');
      expect(r.isError).toBe(true);
      expect(r.text).toContain('rejected the configured credentials');
      expect(r.text).toContain('DIARY_PASSWORD');
      // The catalogue needs no login, so it still works.
      expect((await call(c(), 'list_sports')).isError).toBe(false);
    });

    it('a 5xx is a tool error naming what failed', async () => {
      await call(c(), 'get_user_info');
      sim().failWith({ path: '/training/getCalendarEvents' }, 503, '<html><body>Service  unavailable</body></html>', 'text/html');
      const r = await call(c(), 'get_calendar_events');
      expect(r).toEqual({ isError: true, text: 'listing calendar events failed: upstream HTTP 503: <html><body>Service unavailable</body></html>' });
    });

    it('a slow upstream times out', async () => {
      await call(c(), 'get_user_info');
      sim().delay({ path: '/api/account/users/current/user' }, env.timeoutMs + 500);
      const r = await call(c(), 'get_user_info');
      expect(r).toEqual({ isError: true, text: `reading the current user failed: timed out after ${env.timeoutMs} ms` });
    });

    it('a dropped connection is a tool error', async () => {
      await call(c(), 'get_user_info');
      sim().dropConnection({ path: '/api/training/history' });
      const r = await call(c(), 'list_training_sessions');
      expect(r.isError).toBe(true);
      expect(r.text).toMatch(/^listing sessions failed: /);
    });

    it('a failed user read is reported as such by list_training_sessions', async () => {
      await call(c(), 'get_user_info');
      sim().failWith({ path: '/api/account/users/current/user' }, 500, 'boom');
      const r = await call(c(), 'list_training_sessions');
      expect(r.text).toBe("could not resolve the account's user id: reading the current user failed: upstream HTTP 500: boom");
    });
  });
}

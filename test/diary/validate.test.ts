import { describe, expect, it } from 'vitest';
import { ArgError } from '../../mcp/diary/tools/args/parse.ts';
import { dateRange } from '../../mcp/diary/tools/args/range.ts';
import { trainingArgs } from '../../mcp/diary/tools/trainings/schema.ts';
import { phases } from '../../mcp/diary/tools/targets/phase-schema.ts';
import { targetArgs, VOLUME_MESSAGE } from '../../mcp/diary/tools/targets/schema.ts';

const msg = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    if (e instanceof ArgError) return e.message;
    throw e;
  }
  throw new Error('expected an ArgError');
};

describe('target arguments', () => {
  const base = { name: 'Run', date: '2026-03-12' };
  it('defaults: 18:00, sport 1', () => {
    expect(targetArgs({ ...base, duration_s: 60 })).toMatchObject({ time: '18:00', sport_id: 1, duration_s: 60 });
  });
  it('null counts as absent', () => {
    expect(targetArgs({ ...base, distance_m: 5000, time: null, sport_id: null, description: null, duration_s: null })).toMatchObject({ time: '18:00', distance_m: 5000 });
  });
  it('VOLUME rule, exact message', () => {
    expect(msg(() => targetArgs(base))).toBe(VOLUME_MESSAGE);
    expect(msg(() => targetArgs({ ...base, phases: [] }))).toBe('VOLUME targets (no phases) require duration_s or distance_m');
    expect(msg(() => targetArgs({ ...base, duration_s: 60, distance_m: 100 }))).toMatch(/^duration_s: cannot be combined/);
  });
  it('metrics are ignored (type-checked only) with phases', () => {
    const t = targetArgs({ ...base, duration_s: 0, phases: [{ type: 'warmup', duration_s: 60 }] });
    expect(t.duration_s).toBeUndefined();
    expect(msg(() => targetArgs({ ...base, duration_s: 'x', phases: [{ type: 'warmup', duration_s: 60 }] }))).toMatch(/^duration_s:/);
  });
  it.each([
    [{ name: '' }, 'name: must not be empty'],
    [{ name: '   ' }, 'name: must not be empty'],
    [{ name: 'x'.repeat(46) }, 'name: is 46 characters long; the diary accepts at most 45'],
    [{ name: 5 }, 'name: must be a string'],
    [{ date: '2026-02-30' }, 'date: must be a date in YYYY-MM-DD form'],
    [{ date: '12.3.2026' }, 'date: must be a date in YYYY-MM-DD form'],
    [{ time: '24:00' }, 'time: must be a 24-hour time in HH:MM form'],
    [{ time: '7:00' }, 'time: must be a 24-hour time in HH:MM form'],
    [{ sport_id: 0 }, 'sport_id: must be a positive whole number'],
    [{ sport_id: 1.5 }, 'sport_id: must be a whole number'],
    [{ sport_id: '1' }, 'sport_id: must be a whole number'],
    [{ description: 'x'.repeat(501) }, 'description: is 501 characters long; the diary accepts at most 500'],
    [{ duration_s: -5 }, 'duration_s: must be a positive whole number'],
    [{ phases: {} }, 'phases: must be an array'],
  ])('%j → %s', (patch, expected) => {
    expect(msg(() => targetArgs({ ...base, duration_s: 60, ...patch }))).toBe(expected);
  });
  it('missing required arguments', () => {
    expect(msg(() => targetArgs({ date: '2026-03-12', duration_s: 1 }))).toBe('name: is required');
    expect(msg(() => targetArgs({ name: 'x', duration_s: 1 }))).toBe('date: is required');
  });
});

describe('phases', () => {
  it.each([
    [[{ type: 'interval' }], 'phases[0].type: must be one of warmup, repeat, cooldown'],
    [[{}], 'phases[0].type: is required'],
    [['warmup'], 'phases[0]: must be an object'],
    [[{ type: 'warmup' }], 'phases[0].duration_s: is required'],
    [[{ type: 'warmup', duration_s: 0 }], 'phases[0].duration_s: must be a positive whole number'],
    [[{ type: 'warmup', duration_s: 60, goal: { duration_s: 60 } }], 'phases[0].goal: not accepted on warmup/cooldown; use duration_s'],
    [[{ type: 'cooldown', duration_s: 60, reps: 3 }], 'phases[0].reps: not accepted on warmup/cooldown'],
    [[{ type: 'warmup', duration_s: 60 }, { type: 'repeat', reps: 1, goal: { distance_m: 400 } }], 'phases[1].reps: must be a whole number of at least 2'],
    [[{ type: 'repeat', reps: 2.5, goal: { distance_m: 400 } }], 'phases[0].reps: must be a whole number of at least 2'],
    [[{ type: 'repeat', reps: 3 }], 'phases[0].goal: is required'],
    [[{ type: 'repeat', reps: 3, goal: {} }], 'phases[0].goal: give exactly one of distance_m or duration_s'],
    [[{ type: 'repeat', reps: 3, goal: { distance_m: 400, duration_s: 60 } }], 'phases[0].goal: give exactly one of distance_m or duration_s'],
    [[{ type: 'repeat', reps: 3, duration_s: 60, goal: { distance_m: 400 } }], 'phases[0].duration_s: not accepted on repeat; put it in goal or recovery'],
    [[{ type: 'repeat', reps: 3, goal: { distance_m: 400 }, recovery: {} }], 'phases[0].recovery.duration_s: is required'],
    [[{ type: 'repeat', reps: 3, goal: { distance_m: 400 }, recovery: { duration_s: 30, name: 'x'.repeat(46) } }], 'phases[0].recovery.name: is 46 characters long; the diary accepts at most 45'],
    [[{ type: 'warmup', duration_s: 60 }, { type: 'cooldown', duration_s: 60 }, { type: 'warmup', duration_s: 60, intensity: { hr_zone: 6 } }], 'phases[2].intensity.hr_zone: must be a whole number from 1 to 5'],
    [[{ type: 'warmup', duration_s: 60, intensity: { hr_zone: 2, power_zone: 0 } }], 'phases[0].intensity.power_zone: must be a whole number from 1 to 5'],
    [[{ type: 'warmup', duration_s: 60, intensity: { label: 'hard' } }], 'phases[0].intensity.label: must be one of easy, aerobic, tempo, threshold, vo2max'],
    [[{ type: 'warmup', duration_s: 60, name: 'x'.repeat(46) }], 'phases[0].name: is 46 characters long; the diary accepts at most 45'],
  ])('%j → %s', (p, expected) => {
    expect(msg(() => phases(p))).toBe(expected);
  });
  it('unknown keys are ignored; empty intensity is open', () => {
    expect(phases([{ type: 'warmup', duration_s: 60, colour: 'red', intensity: {} }])).toEqual([{ type: 'warmup', name: undefined, duration_s: 60, intensity: undefined }]);
  });
});

describe('session arguments and ranges', () => {
  it('defaults and wire-relevant values', () => {
    expect(trainingArgs({ name: 'Easy', date: '2026-03-08', duration_s: 2700 })).toEqual({
      name: 'Easy', date: '2026-03-08', time: '18:00', duration_s: 2700, distance_m: 0, kcal: 0,
      hr_avg: undefined, hr_max: undefined, speed_kmh: undefined, sport_id: 1, note: '',
    });
  });
  it.each([
    [{ duration_s: undefined }, 'duration_s: is required'],
    [{ duration_s: 0 }, 'duration_s: must be a positive whole number'],
    [{ kcal: -1 }, 'kcal: must be zero or a positive whole number'],
    [{ hr_avg: 140.5 }, 'hr_avg: must be a whole number'],
    [{ speed_kmh: 'fast' }, 'speed_kmh: must be a number'],
    [{ speed_kmh: -1 }, 'speed_kmh: must be zero or a positive number'],
    [{ note: 3 }, 'note: must be a string'],
  ])('%j → %s', (patch, expected) => {
    expect(msg(() => trainingArgs({ name: 'Easy', date: '2026-03-08', duration_s: 2700, ...patch }))).toBe(expected);
  });
  it('date defaults from today (UTC) and from > to is refused', () => {
    expect(dateRange({}, '2026-03-01', -28, 0)).toEqual({ from: '2026-02-01', to: '2026-03-01' });
    expect(dateRange({ to_date: '2026-03-10' }, '2026-03-01', 0, 30)).toEqual({ from: '2026-03-01', to: '2026-03-10' });
    expect(msg(() => dateRange({ from_date: '2026-03-02', to_date: '2026-03-01' }, '2026-03-01', 0, 0))).toBe('from_date: must not be after to_date');
    expect(msg(() => dateRange({ to_date: '2026-02-28' }, '2026-03-01', 0, 30))).toBe('from_date: must not be after to_date');
  });
});

import { describe, expect, it } from 'vitest';
import * as c from '../../mcp/diary/convert.ts';
import { createState, normaliseTarget } from '../support/diary-sim/state.ts';
import { deviceSession } from '../support/diary-sim/fixtures.ts';

describe('durations', () => {
  it('seconds ↔ HH:MM:SS with hours past 23', () => {
    expect(c.secondsToHms(0)).toBe('00:00:00');
    expect(c.secondsToHms(90)).toBe('00:01:30');
    expect(c.secondsToHms(3661)).toBe('01:01:01');
    expect(c.secondsToHms(90_000)).toBe('25:00:00');
    expect(c.hmsToSeconds('25:00:00')).toBe(90_000);
    expect(c.hmsToSeconds('00:29:00')).toBe(1740);
    expect(c.hmsToSeconds('1:00:00')).toBeUndefined();
    expect(c.hmsToSeconds('00:60:00')).toBeUndefined();
    expect(c.hmsToSeconds(null)).toBeUndefined();
  });
  it('ISO-8601 durations, truncated', () => {
    expect(c.isoDurationToSeconds('PT30M')).toBe(1800);
    expect(c.isoDurationToSeconds('PT52M40.5S')).toBe(3160);
    expect(c.isoDurationToSeconds('PT16H')).toBe(57_600);
    expect(c.isoDurationToSeconds('PT300S')).toBe(300);
    expect(c.isoDurationToSeconds('P1DT2H')).toBe(93_600);
    expect(c.isoDurationToSeconds('PT')).toBeUndefined();
    expect(c.isoDurationToSeconds('30M')).toBeUndefined();
    expect(c.isoDurationToSeconds(null)).toBeUndefined();
  });
  it('milliseconds → seconds, null stays absent', () => {
    expect(c.msToSeconds(2_700_000)).toBe(2700);
    expect(c.msToSeconds(1999)).toBe(1);
    expect(c.msToSeconds(null)).toBeUndefined();
  });
  it('progress totalDuration uses millis, not the broken-down parts', () => {
    const s = c.toProgressSummary(
      { totalDuration: { standardDays: 0, standardHours: 2, standardMinutes: 135, standardSeconds: 8100, millis: 8_100_000 } },
      '2026-01-01',
      '2026-03-31',
    );
    expect(s.total_duration_s).toBe(8100);
  });
  it('human durations for prompts', () => {
    expect(c.humanDuration(30)).toBe('30 s');
    expect(c.humanDuration(2700)).toBe('45 min');
    expect(c.humanDuration(2759)).toBe('45 min');
    expect(c.humanDuration(3600)).toBe('1 h');
    expect(c.humanDuration(3900)).toBe('1 h 5 min');
  });
});

describe('dates', () => {
  it('the day-month forms are distinct', () => {
    expect(c.toDottedDate('2026-02-03')).toBe('3.2.2026');
    expect(c.toDottedDate('2026-12-31')).toBe('31.12.2026');
    expect(c.toDashedDate('2026-02-03')).toBe('03-02-2026');
  });
  it('real calendar days only', () => {
    expect(c.isRealDate('2026-02-28')).toBe(true);
    expect(c.isRealDate('2024-02-29')).toBe(true);
    expect(c.isRealDate('2026-02-30')).toBe(false);
    expect(c.isRealDate('2026-2-3')).toBe(false);
  });
  it('adds days across month and year ends', () => {
    expect(c.addDays('2026-01-31', 1)).toBe('2026-02-01');
    expect(c.addDays('2026-01-01', -1)).toBe('2025-12-31');
    expect(c.addDays('2026-03-01', -90)).toBe('2025-12-01');
  });
  it('upstream datetimes → ISO 8601', () => {
    expect(c.toIsoDateTime('2026-02-03 18:00:00.000')).toBe('2026-02-03T18:00:00');
    expect(c.toIsoDateTime('2026-02-03T18:00:00.708')).toBe('2026-02-03T18:00:00');
    expect(c.toIsoDateTime('2026-02-03T18:00')).toBe('2026-02-03T18:00:00');
    expect(c.toIsoDateTime('2026-02-03T18:00:00.000Z')).toBe('2026-02-03T18:00:00Z');
    expect(c.toIsoDateTime('2026-02-03T18:00+0100')).toBe('2026-02-03T18:00:00+01:00');
    expect(c.toIsoDateTime('yesterday')).toBeUndefined();
  });
  it('create-session date carries the offset without a colon', () => {
    expect(c.formatOffset(60)).toBe('+0100');
    expect(c.formatOffset(-330)).toBe('-0530');
    expect(c.formatOffset(0)).toBe('+0000');
    expect(c.trainingWireDate('2026-03-08', '07:15', 60)).toBe('2026-03-08T07:15+0100');
  });
  it('offset follows the process time zone at that instant (DST aware)', () => {
    // The test runner keeps its own TZ; only the relation between winter and summer is checked.
    const winter = c.localOffsetMinutes('2026-01-15', '12:00');
    const summer = c.localOffsetMinutes('2026-07-15', '12:00');
    expect(Number.isInteger(winter) && Number.isInteger(summer)).toBe(true);
    expect(-new Date(2026, 0, 15, 12, 0).getTimezoneOffset()).toBe(winter);
  });
});

describe('absent values', () => {
  it('account omits empty names and country', () => {
    expect(c.toAccount({ user: { id: 5, userName: 'a@b', firstName: '', lastName: '  ', country: null } })).toEqual({ id: 5, email: 'a@b' });
  });
  it('history row: ms, " " note, space-separated start, 0 HR kept', () => {
    const row = {
      id: 7100000001, duration: 2_700_000, distance: 8000.0, hrAvg: 0, calories: 520, note: ' ', sportName: 'Course à pied',
      sportId: 1, startDate: '2026-03-08 07:15:00.000', recoveryTime: 0, hasTrainingTarget: false, isTest: false,
    };
    expect(c.toTrainingListItem(row)).toEqual({
      id: 7100000001, sport_id: 1, sport_name: 'Course à pied', start_time: '2026-03-08T07:15:00', session_duration_s: 2700,
      distance_m: 8000, hr_avg: 0, calories: 520, recovery_time_s: 0, has_training_target: false, is_test: false,
    });
    const sparse = c.toTrainingListItem({ id: 1, sportId: 2, duration: 1000, distance: null, hrAvg: null, startDate: 'garbled', note: ' x ' });
    expect(sparse).toEqual({ id: 1, sport_id: 2, start_time: 'garbled', session_duration_s: 1, note: 'x', has_training_target: false, is_test: false });
  });
  it('summary: -1 neighbours ignored, null top-level values fall back to exercises', () => {
    const d = deviceSession('2026-03-10');
    const s = c.toTrainingSummary(d.summary);
    expect(s).toEqual({
      id: d.id, name: 'Hill repeats', sport_id: 1, start_time: '2026-03-10T07:30:00', stop_time: '2026-03-10T08:22:40',
      session_duration_s: 3160, distance_m: 8725.43, hr_avg: 151, hr_max: 179, calories: 610, training_load: 97,
    });
    expect(c.presentId(-1)).toBeUndefined();
    expect(c.toTrainingSummary({ id: -1, note: '  ', trainingSessionName: '' })).toEqual({});
  });
  it('progress: ascent/descent 0 omitted, empty lists omitted, 404 → zeros', () => {
    expect(c.toProgressSummary(undefined, '2026-01-01', '2026-01-31')).toEqual({
      from_date: '2026-01-01', to_date: '2026-01-31', number_of_sessions: 0, total_duration_s: 0, total_distance_m: 0, total_kcal: 0,
    });
    const s = c.toProgressSummary(
      { totalTrainingSessionCount: 3, totalDistance: 21500.0, totalCalories: 1450.0, totalAscent: 0, totalDescent: 205,
        sportDistributions: { duration: [] }, totalHeartRateZoneList: [], trainingBenefitDistributionList: [{ trainingBenefit: 'NONE' }] },
      'a', 'b');
    expect(s).toMatchObject({ number_of_sessions: 3, total_distance_m: 21500, total_kcal: 1450, total_descent_m: 205 });
    expect(s).not.toHaveProperty('total_ascent_m');
    expect(s).not.toHaveProperty('heart_rate_zones');
    expect(s.training_benefit_breakdown).toEqual([{ trainingBenefit: 'NONE' }]);
  });
});

describe('session details', () => {
  it('compact view of a device session', () => {
    const v = c.toTrainingDetails(deviceSession('2026-03-10', 7100000002).details) as { id: number; exercises: Record<string, unknown>[] };
    expect(v.id).toBe(7100000002);
    const ex = v.exercises[0];
    expect(ex).toMatchObject({
      exercise_id: 7200000900, sport_id: 1, start_time: '2026-03-10T07:30:00', stop_time: '2026-03-10T08:22:40',
      duration_s: 3160, distance_m: 8725.4, calories: 610, ascent_m: 142.7, descent_m: 139.9, running_index: 47,
      recovery_time_s: 57600, hr_bpm: { avg: 151, max: 179, min: 98 }, speed_kmh: { avg: 9.94, max: 15.1 },
      power_w: { avg: 262, max: 401 }, cadence: { avg: 84, max: 97 },
      samples: ['HEART_RATE', 'SPEED', 'DISTANCE', 'ALTITUDE'],
    });
    expect(ex.zones).toEqual({
      hr: [{ zone: 1, min: 100, max: 120, time_s: 300 }, { zone: 2, min: 120, max: 140, time_s: 900 }],
      speed: [{ zone: 5, min: 12.9, time_s: 75, distance_m: 281.3 }],
      power: [{ zone: 5, min: 410, time_s: 12 }],
    });
    expect(ex).not.toHaveProperty('laps');
    const target = ex.target as { reps: Record<string, unknown>[] };
    expect(target).toMatchObject({ name: 'Hill repeats', type: 'PHASED', reached: true });
    expect(target.reps[0]).toEqual({
      index: 1, phase: 'Warm-up', phase_index: 1, repetition: 1, start_s: 0, end_s: 600, duration_s: 600, distance_m: 1650,
      hr_avg: 131, hr_max: 142, avg_speed_kmh: 9.9, max_speed_kmh: 11.2, pace_s_per_km: 364, cadence_avg: 80, in_zone_s: 540,
      target_zone: { type: 'hr', lower: 2, upper: 2 }, finished: true,
    });
    expect(target.reps[1]).toMatchObject({ start_s: 600, end_s: 720, pace_s_per_km: 300, power_avg_w: 300, finished: false });
    expect(target.reps[1]).not.toHaveProperty('target_zone');
    expect(target.reps[1]).not.toHaveProperty('in_zone_s');
  });
  it('manual session: zero HR stats, empty zones and null samples vanish', () => {
    const body = {
      id: 1,
      exercises: { 9: { id: 9, sport: { id: 1 }, startTime: '2026-03-08T07:15:00', duration: 'PT45M', trainingStatistic: { HEART_RATE: { max: 0, avg: 0, min: null } } } },
      samples: { 9: { HEART_RATE: null, SPEED: null } }, zones: { 9: {} }, laps: { 9: { automaticLaps: [], manualLaps: [] } },
      exerciseResultTargetData: {},
    };
    expect(c.toTrainingDetails(body)).toEqual({
      id: 1, exercises: [{ exercise_id: 9, sport_id: 1, start_time: '2026-03-08T07:15:00', duration_s: 2700, samples: [] }],
    });
  });
});

describe('intensity and phases', () => {
  it('zone mapping and precedence hr > power > speed > label', () => {
    expect(c.intensityToWire(undefined)).toEqual({ intensityType: 'NONE', lowerZone: null, upperZone: null });
    expect(c.intensityToWire({ label: 'easy' })).toEqual({ intensityType: 'HEART_RATE_ZONES', lowerZone: 1, upperZone: 2 });
    expect(c.intensityToWire({ label: 'vo2max' })).toEqual({ intensityType: 'HEART_RATE_ZONES', lowerZone: 5, upperZone: 5 });
    expect(c.intensityToWire({ speed_zone: 4, label: 'easy' })).toEqual({ intensityType: 'SPEED_ZONES', lowerZone: 4, upperZone: 4 });
    expect(c.intensityToWire({ power_zone: 3, speed_zone: 4 })).toEqual({ intensityType: 'POWER_ZONES', lowerZone: 3, upperZone: 3 });
    expect(c.intensityToWire({ hr_zone: 2, power_zone: 3 })).toEqual({ intensityType: 'HEART_RATE_ZONES', lowerZone: 2, upperZone: 2 });
    for (const [label, [lo, hi]] of Object.entries(c.LABEL_ZONES)) {
      expect(c.intensityToWire({ label: label as c.IntensityLabel })).toMatchObject({ lowerZone: lo, upperZone: hi });
    }
  });

  const example: c.Phase[] = [
    { type: 'warmup', duration_s: 600, intensity: { hr_zone: 2 } },
    { type: 'repeat', reps: 6, goal: { distance_m: 400 }, intensity: { speed_zone: 5 }, recovery: { duration_s: 90 } },
    { type: 'cooldown', duration_s: 600 },
  ];

  it('the spec example produces exactly the upstream phases', () => {
    const leaf = (name: string, goalType: string, duration: string | null, distance: number | null, it: string, z: number | null) => ({
      phaseType: 'PHASE', name, phaseChangeType: 'AUTOMATIC', goalType, duration, distance, intensityType: it, lowerZone: z, upperZone: z,
    });
    expect(c.phasesToWire(example)).toEqual([
      leaf('Warm-up', 'DURATION', '00:10:00', null, 'HEART_RATE_ZONES', 2),
      { phaseType: 'REPEAT', repeatCount: 6, phases: [
        leaf('Work', 'DISTANCE', null, 400, 'SPEED_ZONES', 5),
        leaf('Recovery', 'DURATION', '00:01:30', null, 'NONE', null),
      ] },
      leaf('Cool-down', 'DURATION', '00:10:00', null, 'NONE', null),
    ]);
  });
  it('custom and blank names; a duration goal on repeat without recovery', () => {
    const w = c.phasesToWire([
      { type: 'cooldown', name: '  ', duration_s: 60 },
      { type: 'repeat', name: 'Hill', reps: 3, goal: { duration_s: 45 }, recovery: { duration_s: 30, name: 'Jog down' } },
      { type: 'repeat', reps: 2, goal: { distance_m: 2500 } },
    ]);
    expect(w[0].name).toBe('Cool-down');
    expect(w[1]).toMatchObject({ repeatCount: 3, phases: [{ name: 'Hill', goalType: 'DURATION', duration: '00:00:45' }, { name: 'Jog down' }] });
    expect((w[2].phases as unknown[]).length).toBe(1);
  });
  it('VOLUME and PHASED bodies', () => {
    expect(c.targetToWire({ name: 'Easy', date: '2026-03-14', time: '07:00', sport_id: 1, duration_s: 2700 })).toEqual({
      type: 'VOLUME', name: 'Easy', description: '', datetime: '2026-03-14T07:00',
      exerciseTargets: [{ id: null, sportId: 1, duration: '00:45:00', distance: null, calories: null, phases: [] }],
    });
    const dist = c.targetToWire({ name: 'Long', date: '2026-03-14', time: '07:00', sport_id: 2, distance_m: 40000, description: 'x' }, 31);
    expect(dist.exerciseTargets).toEqual([{ id: 31, sportId: 2, duration: null, distance: 40000, calories: null, phases: [] }]);
    const phased = c.targetToWire({ name: 'P', date: '2026-03-14', time: '07:00', sport_id: 1, duration_s: 5, phases: example });
    expect(phased.type).toBe('PHASED');
    expect(phased.exerciseTargets).toMatchObject([{ duration: null, distance: null }]);
  });
  it('round trip through the simulator read-back: roll-ups, phantom fields, zero zones', () => {
    const sent = c.targetToWire({ name: 'Track 6x400', date: '2026-03-12', time: '18:00', sport_id: 1, phases: example });
    const back = normaliseTarget(createState(), sent) as { description: unknown; exerciseTargets: Record<string, unknown>[] };
    expect(back.description).toBeNull();
    const et = back.exerciseTargets[0];
    expect(et.duration).toBe('00:29:00');
    expect(et.distance).toBe(2400);
    expect(c.hmsToSeconds(et.duration)).toBe(600 + 6 * 90 + 600);
    const phases = et.phases as Record<string, unknown>[];
    const work = (phases[1].phases as Record<string, unknown>[])[0];
    expect(work.duration).toBe('00:00:00');
    expect(phases[0]).not.toHaveProperty('distance');
    expect(phases[2]).toMatchObject({ lowerZone: 0, upperZone: 0, intensityType: 'NONE' });
    expect(c.phasesFromWire(phases)).toEqual([
      { leaf: { name: 'Warm-up', goal: { duration_s: 600 }, intensity: { hr_zone: 2 } } },
      { reps: 6, leaves: [
        { name: 'Work', goal: { distance_m: 400 }, intensity: { speed_zone: 5 } },
        { name: 'Recovery', goal: { duration_s: 90 } },
      ] },
      { leaf: { name: 'Cool-down', goal: { duration_s: 600 } } },
    ]);
    expect(c.exerciseTargetId(back)).toBe(et.id);
  });
  it('labels come back as zones (the label itself is not stored)', () => {
    const sent = c.targetToWire({ name: 'E', date: '2026-03-12', time: '18:00', sport_id: 1, phases: [{ type: 'warmup', duration_s: 60, intensity: { label: 'easy' } }] });
    const et = (normaliseTarget(createState(), sent).exerciseTargets as Record<string, unknown>[])[0];
    expect(c.phasesFromWire(et.phases)).toEqual([{ leaf: { name: 'Warm-up', goal: { duration_s: 60 }, intensity: { zones: [1, 2] } } }]);
  });
});

describe('upstream bodies', () => {
  it('create response: bare digits or {"id"}', () => {
    expect(c.parseCreatedId('2100000001')).toBe(2100000001);
    expect(c.parseCreatedId(' 2100000001\n')).toBe(2100000001);
    expect(c.parseCreatedId('{"id": 7}')).toBe(7);
    expect(c.parseCreatedId('')).toBeUndefined();
    expect(c.parseCreatedId('<html>')).toBeUndefined();
  });
  it('validation bodies as JSON served as text', () => {
    expect(c.parseValidationBody('{"time":["error.trainingTarget.twoTargetsForSameTime"]}')).toEqual({ time: ['error.trainingTarget.twoTargetsForSameTime'] });
    expect(c.parseValidationBody('deleteError')).toBeUndefined();
  });
  it('target events: filter case-insensitively, ListItemId or listItemId, (unnamed)', () => {
    const events = [
      { type: 'TRAININGTARGET', ListItemId: 1, title: 'Hill repeats', start: '2026-03-10T07:30:00.000Z' },
      { type: 'EXERCISE', ListItemId: 2, title: 'Run', start: 1773126000 },
      { type: 'trainingTarget', listItemId: 3, title: '', start: '2026-03-11T07:30:00.000Z' },
    ];
    expect(c.targetEvents(events).map(c.targetEventLine)).toEqual([
      '1: Hill repeats (2026-03-10T07:30:00.000Z)',
      '3: (unnamed) (2026-03-11T07:30:00.000Z)',
    ]);
    expect(c.targetEvents({})).toEqual([]);
  });
  it('create-session body: HR as strings or "", speed null when 0', () => {
    const base = { name: 'Easy run', date: '2026-03-08', time: '07:15', duration_s: 2700, distance_m: 8000, kcal: 520, sport_id: 1, note: '' };
    expect(c.trainingToWire({ ...base, hr_avg: 148, hr_max: 0, speed_kmh: 10.7 }, 60)).toEqual({
      date: '2026-03-08T07:15+0100', sport: 1, duration: 2700, distance: 8000, hrAverage: '148', hrMax: '', kiloCalories: 520,
      speedAverage: 10.7, note: '', trainingSessionName: 'Easy run', feeling: null, interpolatedHeartRateSamples: [], saveHeartRateSamples: false,
    });
    expect(c.trainingToWire({ ...base, speed_kmh: 0 }, 0)).toMatchObject({ hrAverage: '', hrMax: '', speedAverage: null });
  });
  it('login tokens and the NotAuthenticated signal', () => {
    const b = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    expect(c.csrfTokenFromPlaySession(`${b({})}.${b({ data: { csrfToken: 'abc' } })}.sig`)).toBe('abc');
    expect(c.csrfTokenFromPlaySession('not-a-jwt')).toBeUndefined();
    expect(c.csrfTokenFromPlaySession(undefined)).toBeUndefined();
    expect(c.isNotAuthenticated(401, '{"error":"NotAuthenticated","redirect":"/"}')).toBe(true);
    expect(c.isNotAuthenticated(401, '{"error":"notauthenticated"}')).toBe(true);
    expect(c.isNotAuthenticated(401, '{"error":"Forbidden"}')).toBe(false);
    expect(c.isNotAuthenticated(403, '<html>Unauthorized</html>')).toBe(false);
  });
});

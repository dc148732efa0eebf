/**
 * The flow host's data endpoints with their encodings and quirks (upstream
 * spec §5): D.M.YYYY calendar dates, DD-MM-YYYY progress dates, ms durations in
 * history, HH:MM:SS in targets, ISO-8601 in analysis, text/plain bodies, empty 200s.
 */
import { FOREIGN_SESSION_ID, FOREIGN_TARGET_ID, SPORTS } from './fixtures.ts';
import { json, plain, type SimRequest, type SimResponse } from './http.ts';
import { nowMs, normaliseTarget, targetDurationS, type SimState, type StoredSession } from './state.ts';

type Json = Record<string, unknown>;
const DAY = 86_400_000;

const parseJson = (body: string): unknown => {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
};
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const ymdToMs = (ymd: string): number => Date.parse(`${ymd}T00:00:00Z`);
const pad = (n: number | string): string => String(n).padStart(2, '0');

/** `D.M.YYYY` (padding tolerated) → `YYYY-MM-DD`, or undefined. */
function dotted(v: unknown): string | undefined {
  const m = typeof v === 'string' ? /^(\d{1,2})\.(\d{1,2})\.(\d{4})$/.exec(v) : null;
  return m ? `${m[3]}-${pad(m[2])}-${pad(m[1])}` : undefined;
}

function dashed(v: unknown): string | undefined {
  const m = typeof v === 'string' ? /^(\d{2})-(\d{2})-(\d{4})$/.exec(v) : null;
  return m ? `${m[3]}-${m[2]}-${m[1]}` : undefined;
}

const sportName = (s: SimState, id: number): string => SPORTS[id]?.[s.account.language] ?? `Sport ${id}`;

/** Epoch seconds of a local wall clock in the account's zone. */
const epochS = (s: SimState, local: string): number => Date.parse(`${local}Z`) / 1000 - s.account.offsetMinutes * 60;

function inRange(day: string, from: string, to: string): boolean {
  return day >= from && day <= to;
}

function sessionsIn(s: SimState, from: string, to: string): StoredSession[] {
  return [...s.sessions.values()].filter((x) => inRange(x.start.slice(0, 10), from, to)).sort((a, b) => a.start.localeCompare(b.start));
}

// ---------------------------------------------------------------- targets

function validateTarget(s: SimState, body: Json, selfId?: number): { errors?: Json; phaseNameTooLong: boolean } {
  const errors: Json = {};
  if (typeof body.name !== 'string' || body.name.length > 45) errors.name = ['error.length'];
  if (typeof body.description === 'string' && body.description.length > 500) errors.description = ['error.length'];
  if (s.contentFilterWord && String(body.name).toLowerCase().includes(s.contentFilterWord.toLowerCase())) {
    errors['trainingSessionTarget.name'] = ['error.trainingSessionTarget.name.forbidden'];
  }
  const clash = [...s.targets.values()].some((t) => t.id !== selfId && t.readBack.datetime === body.datetime);
  if (clash) errors.time = ['error.trainingTarget.twoTargetsForSameTime'];
  let phaseNameTooLong = false;
  const walk = (phases: unknown): void => {
    for (const p of Array.isArray(phases) ? phases : []) {
      if (!isObj(p)) continue;
      if (typeof p.name === 'string' && p.name.length > 45) phaseNameTooLong = true;
      if (p.phaseType === 'PHASE' && p.intensityType !== 'HEART_RATE_ZONES' && !p.name) errors['phases.name'] = ['Ce champ est obligatoire.'];
      walk(p.phases);
    }
  };
  for (const et of Array.isArray(body.exerciseTargets) ? body.exerciseTargets : []) if (isObj(et)) walk(et.phases);
  if (phaseNameTooLong) errors['phases.name'] = ['error.length'];
  return { errors: Object.keys(errors).length ? errors : undefined, phaseNameTooLong };
}

function createTarget(s: SimState, req: SimRequest): SimResponse {
  const body = parseJson(req.body);
  if (!isObj(body)) return plain(400, 'Bad request');
  const v = validateTarget(s, body);
  if (v.errors) {
    // Quirk: an over-long phase name is refused but the target is half-stored anyway.
    if (v.phaseNameTooLong && !v.errors.time) {
      const id = s.ids.target++;
      s.targets.set(id, { id, readBack: normaliseTarget(s, { ...body, exerciseTargets: [] }) });
    }
    return json(400, v.errors, 'text/plain');
  }
  const id = s.ids.target++;
  s.targets.set(id, { id, readBack: normaliseTarget(s, body) });
  return plain(201, String(id));
}

function updateTarget(s: SimState, id: number, req: SimRequest): SimResponse {
  const stored = s.targets.get(id);
  if (!stored) return plain(404, 'trainingTarget.targetNotFound');
  const body = parseJson(req.body);
  if (!isObj(body)) return plain(400, 'Bad request');
  const v = validateTarget(s, body, id);
  if (v.errors) return json(400, v.errors, 'text/plain');
  const liveIds = (stored.readBack.exerciseTargets as Json[]).map((et) => Number(et.id));
  const sentIds = (Array.isArray(body.exerciseTargets) ? body.exerciseTargets : []).map((et) => (isObj(et) ? et.id : null));
  const idsMatch = sentIds.length > 0 && sentIds.every((x, i) => x !== null && x === liveIds[i]);
  if (idsMatch) {
    stored.readBack = normaliseTarget(s, body, liveIds);
  } else {
    // Quirk: without the live exercise-target ids only the top-level fields land.
    const description = typeof body.description === 'string' && body.description !== '' ? body.description : null;
    stored.readBack = { ...stored.readBack, name: body.name, description, datetime: body.datetime };
  }
  return plain(200, '');
}

function targetEvent(t: { id: number; readBack: Json }): Json {
  const et = (t.readBack.exerciseTargets as Json[])[0] ?? {};
  const dur = targetDurationS(t.readBack);
  const ev: Json = {
    type: 'TRAININGTARGET', ListItemId: t.id, title: t.readBack.name, description: '',
    start: `${String(t.readBack.datetime)}:00.000Z`, allDay: 'false', url: `/target/${t.id}`,
    className: 'training-target-icon', eventType: 'trainingTarget', eventId: null, sourceProgramType: 'UNKNOWN',
    isUserEditable: true, iconUrl: `https://cdn.example/sport/${String(et.sportId)}.png`,
    datetime: `${String(t.readBack.datetime)}:00.000`, calories: null, distance: et.distance ?? null,
  };
  // Distance-only targets carry no duration key at all.
  if (dur !== null) ev.duration = dur * 1000;
  return ev;
}

function calendar(s: SimState, req: SimRequest): SimResponse {
  const from = dotted(req.query.get('start'));
  const to = dotted(req.query.get('end'));
  if (!from || !to) return plain(400, 'Invalid date');
  const items: { key: string; ev: Json }[] = [];
  for (const t of s.targets.values()) {
    const day = String(t.readBack.datetime).slice(0, 10);
    if (inRange(day, from, to)) items.push({ key: String(t.readBack.datetime), ev: targetEvent(t) });
  }
  for (const x of sessionsIn(s, from, to)) {
    items.push({
      key: x.start,
      ev: { type: 'EXERCISE', ListItemId: x.id, title: x.name, description: null, start: epochS(s, x.start), allDay: false, url: `/training/analysis/${x.id}` },
    });
  }
  for (const f of s.fitnessEvents) {
    const day = String(f.start).slice(0, 10);
    if (inRange(day, from, to)) items.push({ key: String(f.start), ev: f });
  }
  items.sort((a, b) => a.key.localeCompare(b.key));
  return json(200, items.map((i) => i.ev));
}

function weekSummary(s: SimState, req: SimRequest): SimResponse {
  const body = parseJson(req.body);
  const rawFrom = isObj(body) ? String(body.from) : '';
  const rawTo = isObj(body) ? String(body.to) : '';
  for (const [k, raw] of [['from', rawFrom], ['to', rawTo]] as const) {
    if (!/^\d{1,2}\.\d{1,2}\.\d{4}$/.test(raw)) {
      return plain(400, `content of ${k} (${raw}) is not a valid date: Text '${raw}' could not be parsed at index 4`);
    }
  }
  const from = dotted(rawFrom)!;
  const to = dotted(rawTo)!;
  if (from > to) return plain(400, `from (${from}) date must be before to (${to}) date`);
  const n = Math.round((ymdToMs(to) - ymdToMs(from)) / DAY);
  if (n > 45) return plain(400, `Maximum week aligned range is 45, requested ${n}`);
  const monday = (ymd: string): number => {
    const t = ymdToMs(ymd);
    return t - ((new Date(t).getUTCDay() + 6) % 7) * DAY;
  };
  const weeks = Math.round((monday(to) - monday(from)) / (7 * DAY)) + 1;
  const shape = s.weekSummaryShape;
  const any = sessionsIn(s, from, to).length > 0;
  if (shape === 'empty-array' || (shape === 'auto' && !any)) return json(200, []);
  return json(200, Array.from({ length: weeks }, () => ({})));
}

function progress(s: SimState, req: SimRequest): SimResponse {
  const body = parseJson(req.body);
  const from = isObj(body) ? dashed(body.from) : undefined;
  const to = isObj(body) ? dashed(body.to) : undefined;
  if (!from || !to) return plain(400, 'Invalid date');
  const list = sessionsIn(s, from, to);
  const totalS = list.reduce((a, x) => a + x.durationS, 0);
  const ms = totalS * 1000;
  const bySport = new Map<number, { dur: number; n: number; dist: number }>();
  for (const x of list) {
    const e = bySport.get(x.sportId) ?? { dur: 0, n: 0, dist: 0 };
    e.dur += x.durationS;
    e.n += 1;
    e.dist += x.distance;
    bySport.set(x.sportId, e);
  }
  const dist = (pick: (e: { dur: number; n: number; dist: number }) => number): Json[] => {
    const total = [...bySport.values()].reduce((a, e) => a + pick(e), 0);
    if (bySport.size === 0) {
      const name = s.account.language === 'fr' ? 'Aucune donnée sportive' : 'No sport-related data';
      return [{ sportName: name, distributionPercent: 100.0, nameForChart: name, percentForChart: 100.0, valueForChart: 0.0 }];
    }
    return [...bySport].map(([id, e]) => {
      const pct = total ? (pick(e) / total) * 100 : 0;
      return { sportName: sportName(s, id), distributionPercent: pct, nameForChart: sportName(s, id), percentForChart: pct, valueForChart: pick(e) };
    });
  };
  return json(200, {
    totalTrainingSessionCount: list.length,
    totalDuration: {
      standardDays: Math.floor(totalS / 86400), standardHours: Math.floor(totalS / 3600), standardMinutes: Math.floor(totalS / 60),
      standardSeconds: totalS, millis: ms,
    },
    totalDistance: list.reduce((a, x) => a + x.distance, 0),
    totalCalories: list.reduce((a, x) => a + x.kcal, 0),
    totalAscent: list.reduce((a, x) => a + x.ascent, 0),
    totalDescent: list.reduce((a, x) => a + x.descent, 0),
    sportDistributions: { duration: dist((e) => e.dur), sessions: dist((e) => e.n), distance: dist((e) => e.dist) },
    trainingBenefitDistributionList: [{ trainingBenefit: 'NONE', distributionPercent: 100.0, trainingBenefitTotal: 0.0, nameForChart: 'NONE', percentForChart: 100.0 }],
    totalHeartRateZoneList: [], totalFitFatZonesList: [], totalPowerZoneList: [], totalSpeedZoneList: [],
  });
}

// ---------------------------------------------------------------- sessions

function createSession(s: SimState, req: SimRequest): SimResponse {
  const b = parseJson(req.body);
  if (!isObj(b)) return plain(400, '');
  const m = typeof b.date === 'string' ? /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})([+-])(\d{2})(\d{2})$/.exec(b.date) : null;
  if (!m) return plain(400, '');
  const offset = (m[3] === '-' ? -1 : 1) * (Number(m[4]) * 60 + Number(m[5]));
  const instant = Date.parse(`${m[1]}T${m[2]}:00Z`) - offset * 60_000;
  const hrOk = (v: unknown): boolean => v === '' || (typeof v === 'string' && /^\d+$/.test(v));
  if (instant > nowMs(s) || !hrOk(b.hrAverage) || !hrOk(b.hrMax)) return plain(400, '');
  if (typeof b.duration !== 'number' || typeof b.sport !== 'number') return plain(400, '');
  const id = s.ids.session++;
  s.sessions.set(id, {
    id, name: String(b.trainingSessionName ?? ''), sportId: b.sport, start: `${m[1]}T${m[2]}:00`, durationS: b.duration,
    distance: Number(b.distance ?? 0), kcal: Number(b.kiloCalories ?? 0),
    hrAvg: b.hrAverage === '' ? null : Number(b.hrAverage), hrMax: b.hrMax === '' ? null : Number(b.hrMax),
    speed: typeof b.speedAverage === 'number' ? b.speedAverage : null, note: String(b.note ?? ''), ascent: 0, descent: 0,
  });
  return plain(200, '');
}

function history(s: SimState, req: SimRequest): SimResponse {
  const b = parseJson(req.body);
  if (!isObj(b) || typeof b.fromDate !== 'string' || typeof b.toDate !== 'string') return plain(400, 'Bad request');
  if (b.userId !== s.account.userId) return json(200, []);
  return json(
    200,
    sessionsIn(s, b.fromDate, b.toDate).map((x) => ({
      id: x.id, duration: x.durationS * 1000, distance: x.distance || null, hrAvg: x.hrAvg ?? 0, calories: x.kcal,
      note: x.note.trim() === '' ? ' ' : x.note, sportName: sportName(s, x.sportId), sportId: x.sportId,
      startDate: `${x.start.replace('T', ' ')}.000`, recoveryTime: x.device ? 57_600_000 : 0,
      iconUrl: `https://cdn.example/sport/${x.sportId}.png`, trainingLoadHtml: '', hasTrainingTarget: !!x.device,
      swimmingSport: false, swimmingPoolUnits: 'METERS', trainingLoadProHtml: '', periodDataUuid: null, isTest: false,
    })),
  );
}

const isoDur = (sec: number): string => `PT${sec}S`;
const stopOf = (x: StoredSession): string => new Date(Date.parse(`${x.start}Z`) + x.durationS * 1000).toISOString().slice(0, 19);

function analysis(s: SimState, id: number, kind: 'summary' | 'details'): SimResponse {
  if (id === FOREIGN_SESSION_ID) return plain(403, 'error.invalid.training');
  const x = s.sessions.get(id);
  if (!x) return plain(404, 'trainingSession.notFound');
  if (x.device) return json(200, kind === 'summary' ? x.device.summary : x.device.details);
  const ex = id + 100_000_000;
  const exercise = {
    id: ex, sport: { id: x.sportId }, startTime: x.start, stopTime: stopOf(x), duration: isoDur(x.durationS),
    distance: x.distance, calories: x.kcal, sportParent: SPORTS[x.sportId]?.constant ?? 'OTHER',
    trainingStatistic: { HEART_RATE: { max: x.hrMax ?? 0, avg: x.hrAvg ?? 0, min: null } },
  };
  if (kind === 'summary') {
    return json(200, {
      id, nextTrainingId: -1, previousTrainingId: -1, userId: s.account.userId, trainingSessionName: x.name,
      note: x.note.trim() === '' ? null : x.note, startDate: x.start, stopTime: stopOf(x), duration: isoDur(x.durationS),
      distance: null, kiloCalories: x.kcal, hrAverage: x.hrAvg ?? 0, hrMax: x.hrMax ?? 0, trainingLoad: null, sportId: null,
      exercises: { [ex]: exercise }, deviceName: '', timezoneOffset: null, hasRRsamples: false, trimmed: false,
    });
  }
  return json(200, {
    id, periodDataUuid: null, exercises: { [ex]: exercise },
    samples: { [ex]: { HEART_RATE: null, SPEED: null, DISTANCE: null, ALTITUDE: null, POWER: null, CADENCE: null } },
    zones: { [ex]: {} }, laps: { [ex]: { automaticLaps: [], manualLaps: [] } }, exerciseResultTargetData: {},
    periodData: null, swimDatas: {}, pauseTimeData: { [ex]: [] }, defaultHrZones: { [ex]: null }, errors: {},
  });
}

// ---------------------------------------------------------------- router

/** Routes an authenticated flow-host data request; undefined when no route matches. */
export function dataRoute(s: SimState, req: SimRequest): SimResponse | undefined {
  const { method, path } = req;
  let m: RegExpExecArray | null;
  if (method === 'GET' && path === '/api/account/users/current/user') {
    const a = s.account;
    return json(200, {
      user: { id: a.userId, userName: a.email, firstName: a.firstName, lastName: a.lastName, nickName: null, pictureUrl: null, country: a.country },
      localizationInfo: { firstDayOfWeek: 'MONDAY', measurementUnit: 'METRIC', timeZone: '+01:00', flowLanguage: a.language, userAgentLanguage: a.language },
      physicalInfo: { sex: 'FEMALE', weight: 61, height: 168, maximumHeartRate: 188, restingHeartRate: 52 },
      sportProfiles: [], applicationRoles: [], capabilities: [], productCapabilities: [],
    });
  }
  if (method === 'POST' && path === '/api/trainingtarget') return createTarget(s, req);
  if ((m = /^\/api\/trainingtarget\/(\d+)$/.exec(path))) {
    const id = Number(m[1]);
    if (method === 'PUT' || method === 'PATCH') return plain(404, 'Not found');
    if (id === FOREIGN_TARGET_ID) return plain(403, 'error.invalid.target');
    if (method === 'GET') {
      const t = s.targets.get(id);
      return t ? json(200, t.readBack) : plain(404, 'trainingTarget.targetNotFound');
    }
    if (method === 'POST') return updateTarget(s, id, req);
  }
  if (method === 'DELETE' && (m = /^\/training\/target\/(\d+)$/.exec(path))) {
    const id = Number(m[1]);
    if (s.targets.delete(id)) return plain(200, '');
    return s.deleteMissing === '400' ? plain(400, 'deleteError') : plain(200, '');
  }
  if (method === 'GET' && path === '/training/getCalendarEvents') return calendar(s, req);
  if (method === 'POST' && path === '/training/getCalendarWeekSummary') return weekSummary(s, req);
  if (method === 'POST' && path === '/progress/getProgressViewSummaryAsJson') return progress(s, req);
  if (method === 'POST' && path === '/api/training/create') return createSession(s, req);
  if (method === 'POST' && path === '/api/training/history') return history(s, req);
  if (method === 'GET' && (m = /^\/api\/training\/analysis\/(\d+)\/(summary|details)$/.exec(path))) {
    return analysis(s, Number(m[1]), m[2] as 'summary' | 'details');
  }
  return undefined;
}

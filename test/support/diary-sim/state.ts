/**
 * In-memory state of the simulated diary and the training-target storage rules
 * (read-back normalisation, roll-ups, one-rep unwrap), written independently of
 * the server's own conversion module so the tests compare two implementations.
 */
import { DEMO_ACCOUNT, deviceSession, type DeviceSession } from './fixtures.ts';

type Json = Record<string, unknown>;

/** A stored training target: the normalised read-back form. */
export type StoredTarget = { id: number; readBack: Json };

/** A stored session: manual entries and seeded device uploads. */
export type StoredSession = {
  id: number;
  name: string;
  sportId: number;
  /** Local wall clock `YYYY-MM-DDTHH:MM:SS`. */
  start: string;
  durationS: number;
  distance: number;
  kcal: number;
  hrAvg: number | null;
  hrMax: number | null;
  speed: number | null;
  note: string;
  ascent: number;
  descent: number;
  device?: DeviceSession;
};

/** Everything the simulator remembers. */
export type SimState = {
  account: typeof DEMO_ACCOUNT;
  rejectLogins: boolean;
  now: number | undefined;
  sessionTtlS: number;
  flowSessions: Map<string, number>;
  authSessions: Set<string>;
  csrfTokens: Set<string>;
  xsrfTokens: Set<string>;
  codes: Set<string>;
  targets: Map<number, StoredTarget>;
  sessions: Map<number, StoredSession>;
  fitnessEvents: Json[];
  ids: { target: number; exerciseTarget: number; phase: number; session: number };
  deleteMissing: '200' | '400';
  weekSummaryShape: 'auto' | 'empty-objects' | 'empty-array';
  contentFilterWord: string | undefined;
};

/** A fresh state with the demo account and no data. */
export function createState(): SimState {
  return {
    account: { ...DEMO_ACCOUNT },
    rejectLogins: false,
    now: undefined,
    sessionTtlS: 3600,
    flowSessions: new Map(),
    authSessions: new Set(),
    csrfTokens: new Set(),
    xsrfTokens: new Set(),
    codes: new Set(),
    targets: new Map(),
    sessions: new Map(),
    fitnessEvents: [],
    ids: { target: 2100000001, exerciseTarget: 3100000001, phase: 4100000001, session: 7100000001 },
    deleteMissing: '200',
    weekSummaryShape: 'auto',
    contentFilterWord: undefined,
  };
}

/** The simulator clock in ms. */
export const nowMs = (s: SimState): number => s.now ?? Date.now();

/** Adds a device session (fixture) on a given day. */
export function seedDeviceSession(s: SimState, day: string, id?: number): StoredSession {
  const d = deviceSession(day, id);
  const stored: StoredSession = {
    id: d.id, name: d.name, sportId: d.sportId, start: d.start, durationS: d.durationS, distance: d.distance,
    kcal: d.kcal, hrAvg: d.hrAvg, hrMax: d.hrMax, speed: 9.94, note: '', ascent: d.ascent, descent: d.descent, device: d,
  };
  s.sessions.set(d.id, stored);
  return stored;
}

// ---------------------------------------------------------------- targets

const hms = (sec: number): string =>
  [Math.floor(sec / 3600), Math.floor((sec % 3600) / 60), sec % 60].map((n) => String(n).padStart(2, '0')).join(':');

const secs = (v: unknown): number => {
  const m = typeof v === 'string' ? /^(\d+):(\d\d):(\d\d)$/.exec(v) : null;
  return m ? Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]) : 0;
};

const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function normaliseLeaf(s: SimState, l: Json): Json {
  const none = l.intensityType === 'NONE' || l.intensityType == null;
  const out: Json = {
    id: s.ids.phase++,
    phaseType: 'PHASE',
    name: l.name ?? null,
    phaseChangeType: l.phaseChangeType ?? 'AUTOMATIC',
    goalType: l.goalType,
    intensityType: none ? 'NONE' : l.intensityType,
    lowerZone: none ? 0 : (l.lowerZone ?? 0),
    upperZone: none ? 0 : (l.upperZone ?? 0),
  };
  if (l.goalType === 'DISTANCE') {
    out.distance = l.distance;
    out.duration = '00:00:00'; // phantom duration on distance leaves
  } else {
    out.duration = l.duration; // and no distance key at all
  }
  return out;
}

function normalisePhases(s: SimState, phases: unknown): Json[] {
  const out: Json[] = [];
  for (const p of Array.isArray(phases) ? phases : []) {
    if (!isObj(p)) continue;
    if (p.phaseType === 'REPEAT') {
      const leaves = (Array.isArray(p.phases) ? p.phases : []).filter(isObj).map((l) => normaliseLeaf(s, l));
      if (p.repeatCount === 1) out.push(...leaves); // one-rep groups unwrap
      else out.push({ phaseType: 'REPEAT', repeatCount: p.repeatCount, phases: leaves });
    } else out.push(normaliseLeaf(s, p));
  }
  return out;
}

/** Roll-ups: DURATION and DISTANCE leaf sums, groups multiplied by their repeat count. */
export function rollUp(phases: Json[]): { durationS: number | null; distance: number | null } {
  let dur: number | null = null;
  let dist: number | null = null;
  const add = (l: Json, times: number): void => {
    if (l.goalType === 'DISTANCE') dist = (dist ?? 0) + Number(l.distance ?? 0) * times;
    else dur = (dur ?? 0) + secs(l.duration) * times;
  };
  for (const p of phases) {
    if (p.phaseType === 'REPEAT') for (const l of p.phases as Json[]) add(l, Number(p.repeatCount));
    else add(p, 1);
  }
  return { durationS: dur, distance: dist };
}

function normaliseExerciseTarget(s: SimState, et: Json, index: number, keepId?: number): Json {
  const phases = normalisePhases(s, et.phases);
  const base = { id: keepId ?? s.ids.exerciseTarget++, index, sportId: et.sportId, calories: et.calories ?? null };
  if (phases.length === 0) {
    return { ...base, duration: et.duration ?? null, distance: et.distance ?? null, phases: [] };
  }
  const r = rollUp(phases);
  return { ...base, duration: r.durationS === null ? null : hms(r.durationS), distance: r.distance, phases };
}

/** Written body → stored read-back form (ids assigned, description "" → null, extras added). */
export function normaliseTarget(s: SimState, body: Json, keepIds: number[] = []): Json {
  const ets = (Array.isArray(body.exerciseTargets) ? body.exerciseTargets : []).filter(isObj);
  return {
    type: body.type,
    name: body.name,
    description: typeof body.description === 'string' && body.description !== '' ? body.description : null,
    datetime: body.datetime,
    sourceProgramType: 'UNKNOWN',
    isUserEditable: true,
    exerciseTargets: ets.map((et, i) => normaliseExerciseTarget(s, et, i, keepIds[i])),
  };
}

/** Rolled-up duration of a stored target in seconds, or null. */
export function targetDurationS(t: Json): number | null {
  const et = (t.exerciseTargets as Json[])[0];
  return et && typeof et.duration === 'string' ? secs(et.duration) : null;
}

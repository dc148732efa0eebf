/**
 * Every conversion between the canonical tool contract (seconds, metres, km/h,
 * ISO 8601) and the upstream diary's many encodings lives here, as pure
 * functions. Nothing in this module performs I/O; the only ambient input is the
 * process time zone used by {@link localOffsetMinutes}.
 */

/** A JSON object as received from upstream; shapes are not trusted. */
export type Json = Record<string, unknown>;

// ---------------------------------------------------------------- helpers

const pad2 = (n: number): string => String(n).padStart(2, '0');

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** A string that is non-empty after trimming, else undefined (the contract's omission rule). */
export function presentText(v: unknown): string | undefined {
  if (typeof v !== 'string') return undefined;
  return v.trim() === '' ? undefined : v;
}

/** Drops keys whose value is undefined so that absent values never reach JSON as null. */
export function compact<T extends Json>(obj: T): T {
  const out: Json = {};
  for (const [k, v] of Object.entries(obj)) if (v !== undefined) out[k] = v;
  return out as T;
}

/** The `-1` id sentinel and null both mean "no value". */
export function presentId(v: unknown): number | undefined {
  const n = num(v);
  return n === undefined || n === -1 ? undefined : n;
}

const round = (v: number, digits: number): number => {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
};

// ---------------------------------------------------------------- durations

/** Seconds → `HH:MM:SS`, zero padded, hours allowed past 23 (90000 → `25:00:00`). */
export function secondsToHms(total: number): string {
  const s = Math.max(0, Math.trunc(total));
  return `${pad2(Math.floor(s / 3600))}:${pad2(Math.floor((s % 3600) / 60))}:${pad2(s % 60)}`;
}

/** Strict `HH:MM:SS` (two-digit minute/second fields, hours ≥ 2 digits) → seconds. */
export function hmsToSeconds(v: unknown): number | undefined {
  if (typeof v !== 'string') return undefined;
  const m = /^(\d{2,}):([0-5]\d):([0-5]\d)$/.exec(v);
  if (!m) return undefined;
  return Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]);
}

/** ISO-8601 duration (`PT52M40.5S`, `PT16H`, `P1DT2H`, `PT300S`) → whole seconds, truncated. */
export function isoDurationToSeconds(v: unknown): number | undefined {
  if (typeof v !== 'string') return undefined;
  const m = /^(-)?P(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/.exec(v);
  if (!m || v === 'P' || v.endsWith('T')) return undefined;
  const [, neg, d, h, mi, s] = m;
  const total = Number(d ?? 0) * 86400 + Number(h ?? 0) * 3600 + Number(mi ?? 0) * 60 + Number(s ?? 0);
  return Math.trunc(neg ? -total : total);
}

/** Milliseconds → whole seconds, truncated; null/missing stays absent. */
export function msToSeconds(v: unknown): number | undefined {
  const n = num(v);
  return n === undefined ? undefined : Math.trunc(n / 1000);
}

/** Prompt wording: `1 h 5 min`, `2 h`, `45 min`, `30 s` (seconds dropped past a minute). */
export function humanDuration(totalSeconds: number): string {
  const s = Math.trunc(totalSeconds);
  if (s < 60) return `${s} s`;
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (h === 0) return `${m} min`;
  return m === 0 ? `${h} h` : `${h} h ${m} min`;
}

// ---------------------------------------------------------------- dates

/** `YYYY-MM-DD` of a Date in UTC: the contract computes "today" in UTC. */
export function utcDate(d: Date): string {
  return d.toISOString().slice(0, 10);
}

/** Adds whole days to a `YYYY-MM-DD` calendar date (negative to go back). */
export function addDays(ymd: string, days: number): string {
  const [y, m, d] = ymd.split('-').map(Number);
  return utcDate(new Date(Date.UTC(y, m - 1, d + days)));
}

/** True for a real calendar day in `YYYY-MM-DD` form (`2026-02-30` is not). */
export function isRealDate(v: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(v)) return false;
  const [y, m, d] = v.split('-').map(Number);
  const t = new Date(Date.UTC(y, m - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === m - 1 && t.getUTCDate() === d;
}

/** `2026-02-03` → `3.2.2026`: calendar events and week summary (unpadded, dots). */
export function toDottedDate(ymd: string): string {
  const [y, m, d] = ymd.split('-').map(Number);
  return `${d}.${m}.${y}`;
}

/** `2026-02-03` → `03-02-2026`: progress summary (padded, dashes). */
export function toDashedDate(ymd: string): string {
  const [y, m, d] = ymd.split('-');
  return `${d}-${m}-${y}`;
}

/**
 * Upstream local datetimes (`2026-02-03 18:00:00.000`, `2026-02-03T18:00:00.708`,
 * `2026-02-03T18:00`) → `YYYY-MM-DDTHH:MM:SS`; a value carrying a zone keeps it
 * (RFC 3339). Unparseable input gives undefined so callers can decide.
 */
export function toIsoDateTime(v: unknown): string | undefined {
  if (typeof v !== 'string') return undefined;
  const m = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?(?:\.\d+)?(Z|[+-]\d{2}:?\d{2})?$/.exec(v.trim());
  if (!m) return undefined;
  const [, day, hh, mm, ss, zone] = m;
  const base = `${day}T${hh}:${mm}:${ss ?? '00'}`;
  if (!zone) return base;
  if (zone === 'Z') return `${base}Z`;
  return `${base}${zone.slice(0, 3)}:${zone.slice(-2)}`;
}

/** Minutes east of UTC of the process time zone at a local wall-clock instant. */
export function localOffsetMinutes(date: string, time: string): number {
  const [y, mo, d] = date.split('-').map(Number);
  const [h, mi] = time.split(':').map(Number);
  return -new Date(y, mo - 1, d, h, mi).getTimezoneOffset();
}

/** Offset minutes → `+0100` / `-0530` (no colon, as the create-session body wants). */
export function formatOffset(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const a = Math.abs(minutes);
  return `${sign}${pad2(Math.floor(a / 60))}${pad2(a % 60)}`;
}

/** The create-session `date`: local wall clock with numeric offset, `2026-03-08T07:15+0100`. */
export function sessionWireDate(date: string, time: string, offsetMinutes: number): string {
  return `${date}T${time}${formatOffset(offsetMinutes)}`;
}

// ---------------------------------------------------------------- account

/** Current-user body → canonical account; names and country omitted when empty. */
export function toAccount(body: unknown): Json {
  const user = isObject(body) && isObject(body.user) ? body.user : {};
  return compact({
    id: user.id,
    email: user.userName,
    first_name: presentText(user.firstName),
    last_name: presentText(user.lastName),
    country: presentText(user.country),
  });
}

// ---------------------------------------------------------------- intensity and phases

/** The five intensity labels and the heart-rate zones they stand for. */
export const LABEL_ZONES = {
  easy: [1, 2],
  aerobic: [2, 2],
  tempo: [3, 3],
  threshold: [4, 4],
  vo2max: [5, 5],
} as const;

/** An intensity label of the canonical phase model. */
export type IntensityLabel = keyof typeof LABEL_ZONES;

/** Canonical intensity; when several members are set, precedence decides (hr > power > speed > label). */
export type Intensity = { hr_zone?: number; power_zone?: number; speed_zone?: number; label?: IntensityLabel };

/** A validated canonical phase. */
export type Phase =
  | { type: 'warmup' | 'cooldown'; name?: string; duration_s: number; intensity?: Intensity }
  | {
      type: 'repeat';
      name?: string;
      reps: number;
      goal: { distance_m: number } | { duration_s: number };
      intensity?: Intensity;
      recovery?: { duration_s: number; name?: string };
    };

/** Upstream intensity fields of a phase leaf. */
export type WireIntensity = { intensityType: string; lowerZone: number | null; upperZone: number | null };

/** Canonical intensity → upstream `intensityType` and zones, applying the precedence rule. */
export function intensityToWire(i: Intensity | undefined): WireIntensity {
  if (i?.hr_zone !== undefined) return { intensityType: 'HEART_RATE_ZONES', lowerZone: i.hr_zone, upperZone: i.hr_zone };
  if (i?.power_zone !== undefined) return { intensityType: 'POWER_ZONES', lowerZone: i.power_zone, upperZone: i.power_zone };
  if (i?.speed_zone !== undefined) return { intensityType: 'SPEED_ZONES', lowerZone: i.speed_zone, upperZone: i.speed_zone };
  if (i?.label !== undefined) {
    const [lo, hi] = LABEL_ZONES[i.label];
    return { intensityType: 'HEART_RATE_ZONES', lowerZone: lo, upperZone: hi };
  }
  return { intensityType: 'NONE', lowerZone: null, upperZone: null };
}

const DEFAULT_NAMES = { warmup: 'Warm-up', cooldown: 'Cool-down', work: 'Work', recovery: 'Recovery' } as const;

function leaf(name: string, goal: { duration_s: number } | { distance_m: number }, intensity: WireIntensity): Json {
  const isDistance = 'distance_m' in goal;
  return {
    phaseType: 'PHASE',
    name,
    phaseChangeType: 'AUTOMATIC',
    goalType: isDistance ? 'DISTANCE' : 'DURATION',
    duration: isDistance ? null : secondsToHms(goal.duration_s),
    distance: isDistance ? goal.distance_m : null,
    ...intensity,
  };
}

/** Canonical phases → the upstream phase tree (leaves and REPEAT groups). */
export function phasesToWire(phases: readonly Phase[]): Json[] {
  return phases.map((p) => {
    if (p.type !== 'repeat') {
      return leaf(presentText(p.name) ?? DEFAULT_NAMES[p.type], { duration_s: p.duration_s }, intensityToWire(p.intensity));
    }
    const work = leaf(presentText(p.name) ?? DEFAULT_NAMES.work, p.goal, intensityToWire(p.intensity));
    const children = [work];
    if (p.recovery) {
      children.push(
        leaf(presentText(p.recovery.name) ?? DEFAULT_NAMES.recovery, { duration_s: p.recovery.duration_s }, intensityToWire(undefined)),
      );
    }
    return { phaseType: 'REPEAT', repeatCount: p.reps, phases: children };
  });
}

/** A read-back leaf in canonical terms: what the round-trip tests compare. */
export type LeafView = {
  name: string;
  goal: { duration_s: number } | { distance_m: number };
  intensity?: { hr_zone: number } | { power_zone: number } | { speed_zone: number } | { zones: [number, number] };
};

/** A read-back phase tree element in canonical terms. */
export type PhaseView = { leaf: LeafView } | { reps: number; leaves: LeafView[] };

function leafFromWire(l: Json): LeafView {
  // goalType is authoritative: DISTANCE leaves carry a phantom "00:00:00" duration.
  const goal =
    l.goalType === 'DISTANCE' ? { distance_m: num(l.distance) ?? 0 } : { duration_s: hmsToSeconds(l.duration) ?? 0 };
  const lo = num(l.lowerZone);
  const hi = num(l.upperZone);
  let intensity: LeafView['intensity'];
  if (l.intensityType !== 'NONE' && lo !== undefined && hi !== undefined && lo > 0) {
    if (lo !== hi) intensity = { zones: [lo, hi] };
    else if (l.intensityType === 'HEART_RATE_ZONES') intensity = { hr_zone: lo };
    else if (l.intensityType === 'POWER_ZONES') intensity = { power_zone: lo };
    else if (l.intensityType === 'SPEED_ZONES') intensity = { speed_zone: lo };
  }
  return compact({ name: String(l.name ?? ''), goal, intensity }) as LeafView;
}

/** Upstream phase tree (as read back) → canonical view: zones 0 mean none, goalType decides the goal. */
export function phasesFromWire(phases: unknown): PhaseView[] {
  if (!Array.isArray(phases)) return [];
  return phases.filter(isObject).map((p) =>
    p.phaseType === 'REPEAT'
      ? { reps: num(p.repeatCount) ?? 1, leaves: (Array.isArray(p.phases) ? p.phases : []).filter(isObject).map(leafFromWire) }
      : { leaf: leafFromWire(p) },
  );
}

// ---------------------------------------------------------------- training targets

/** Validated target arguments (create and update share them). */
export type TargetInput = {
  name: string;
  date: string;
  time: string;
  sport_id: number;
  description?: string;
  duration_s?: number;
  distance_m?: number;
  phases?: Phase[];
};

/** Canonical target arguments → upstream create/update body; `exerciseTargetId` is null on create. */
export function targetToWire(t: TargetInput, exerciseTargetId: number | null = null): Json {
  const phased = t.phases !== undefined && t.phases.length > 0;
  return {
    type: phased ? 'PHASED' : 'VOLUME',
    name: t.name,
    description: t.description ?? '',
    datetime: `${t.date}T${t.time}`,
    exerciseTargets: [
      {
        id: exerciseTargetId,
        sportId: t.sport_id,
        duration: !phased && t.duration_s !== undefined ? secondsToHms(t.duration_s) : null,
        distance: !phased && t.duration_s === undefined && t.distance_m !== undefined ? t.distance_m : null,
        calories: null,
        phases: phased ? phasesToWire(t.phases!) : [],
      },
    ],
  };
}

/** The live exercise-target id of a read-back target, carried over by update. */
export function exerciseTargetId(readBack: unknown): number | null {
  if (!isObject(readBack) || !Array.isArray(readBack.exerciseTargets)) return null;
  const first = readBack.exerciseTargets[0];
  return isObject(first) ? (num(first.id) ?? null) : null;
}

/** Create-target 201 body: bare digits, or `{"id": n}` defensively; anything else is undefined. */
export function parseCreatedId(text: string): number | undefined {
  const t = text.trim();
  if (/^\d+$/.test(t)) return Number(t);
  try {
    const v: unknown = JSON.parse(t);
    if (isObject(v) && typeof v.id === 'number' && Number.isInteger(v.id)) return v.id;
  } catch {
    // not JSON: fall through
  }
  return undefined;
}

/** A 400 validation body (JSON map field → codes, possibly as text/plain), or undefined when unparseable. */
export function parseValidationBody(text: string): Record<string, string[]> | undefined {
  try {
    const v: unknown = JSON.parse(text);
    if (!isObject(v)) return undefined;
    const out: Record<string, string[]> = {};
    for (const [k, codes] of Object.entries(v)) out[k] = Array.isArray(codes) ? codes.map(String) : [String(codes)];
    return out;
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------- calendar

/** Keeps calendar events of type TRAININGTARGET (case-insensitive), in upstream order. */
export function targetEvents(events: unknown): Json[] {
  if (!Array.isArray(events)) return [];
  return events.filter((e): e is Json => isObject(e) && typeof e.type === 'string' && e.type.toUpperCase() === 'TRAININGTARGET');
}

/** One `list_training_targets` line: `<id>: <title> (<start>)`. */
export function targetEventLine(e: Json): string {
  const id = e.ListItemId ?? e.listItemId;
  const title = presentText(e.title) ?? '(unnamed)';
  return `${String(id)}: ${title} (${String(e.start ?? '')})`;
}

// ---------------------------------------------------------------- sessions

/** History row → canonical list item (ms → s, `" "` note → omitted, space-separated start → ISO). */
export function toSessionListItem(row: unknown): Json {
  const r = isObject(row) ? row : {};
  const start = presentText(r.startDate);
  return compact({
    id: r.id,
    sport_id: r.sportId,
    sport_name: presentText(r.sportName),
    start_time: start === undefined ? undefined : (toIsoDateTime(start) ?? start),
    session_duration_s: msToSeconds(r.duration) ?? 0,
    distance_m: num(r.distance),
    hr_avg: num(r.hrAvg),
    calories: num(r.calories),
    recovery_time_s: msToSeconds(r.recoveryTime),
    note: presentText(r.note)?.trim(),
    has_training_target: r.hasTrainingTarget === true,
    is_test: r.isTest === true,
  });
}

function exerciseList(exercises: unknown): Json[] {
  if (!isObject(exercises)) return [];
  return Object.entries(exercises)
    .filter((e): e is [string, Json] => isObject(e[1]))
    .map(([key, ex]) => ({ ...ex, __key: key }));
}

function byStart(a: Json, b: Json): number {
  return String(a.startTime ?? '').localeCompare(String(b.startTime ?? ''));
}

/** Analysis summary → canonical session; top-level nulls fall back to exercise values. */
export function toSessionSummary(body: unknown): Json {
  const b = isObject(body) ? body : {};
  const exercises = exerciseList(b.exercises).sort(byStart);
  const firstSport = exercises.map((e) => (isObject(e.sport) ? num(e.sport.id) : undefined)).find((v) => v !== undefined);
  const exDistances = exercises.map((e) => num(e.distance)).filter((v): v is number => v !== undefined);
  return compact({
    id: presentId(b.id),
    name: presentText(b.trainingSessionName),
    sport_id: num(b.sportId) ?? firstSport,
    start_time: toIsoDateTime(b.startDate),
    stop_time: toIsoDateTime(b.stopTime),
    session_duration_s: isoDurationToSeconds(b.duration),
    distance_m: num(b.distance) ?? (exDistances.length ? exDistances.reduce((x, y) => x + y, 0) : undefined),
    hr_avg: num(b.hrAverage),
    hr_max: num(b.hrMax),
    calories: num(b.kiloCalories),
    training_load: num(b.trainingLoad),
    note: presentText(b.note)?.trim(),
  });
}

const STAT_KEYS = { HEART_RATE: 'hr_bpm', SPEED: 'speed_kmh', POWER: 'power_w', CADENCE: 'cadence' } as const;
const SAMPLE_ORDER = ['HEART_RATE', 'SPEED', 'DISTANCE', 'CADENCE', 'ALTITUDE', 'POWER'];
const ZONE_KEYS = { HEART_RATE: 'hr', SPEED: 'speed', POWER: 'power' } as const;
const ZONE_CEILING: Record<string, number> = { SPEED: 399, POWER: 2000 };
const TARGET_ZONE_TYPES: Record<string, string> = {
  HEART_RATE_ZONES: 'hr',
  HEART_RATE: 'hr',
  SPEED_ZONES: 'speed',
  SPEED: 'speed',
  POWER_ZONES: 'power',
  POWER: 'power',
};

function stat(s: unknown, key: keyof typeof STAT_KEYS): Json | undefined {
  if (!isObject(s)) return undefined;
  const conv = (v: unknown): number | undefined => {
    const n = num(v);
    if (n === undefined) return undefined;
    return key === 'SPEED' ? round(n, 2) : Math.round(n);
  };
  const out = compact({ avg: conv(s.avg), max: conv(s.max), min: conv(s.min) });
  // Manual sessions report HR as 0: an all-zero block carries no information.
  return Object.values(out).some((v) => v !== 0) ? out : undefined;
}

function zonesFor(z: unknown): Json | undefined {
  if (!isObject(z)) return undefined;
  const out: Json = {};
  for (const [up, key] of Object.entries(ZONE_KEYS)) {
    const list = z[up];
    if (!Array.isArray(list) || list.length === 0) continue;
    out[key] = list.filter(isObject).map((item, i) => {
      const max = num(item.higherLimit);
      const ceiling = ZONE_CEILING[up];
      return compact({
        zone: num(item.zoneIndex) ?? i + 1,
        min: num(item.lowerLimit),
        max: max !== undefined && ceiling !== undefined && max >= ceiling ? undefined : max,
        time_s: isoDurationToSeconds(item.inZone),
        distance_m: num(item.distance),
      });
    });
  }
  return Object.keys(out).length ? out : undefined;
}

function targetFor(t: unknown): Json | undefined {
  if (!isObject(t)) return undefined;
  const models = Array.isArray(t.exercisePhaseModels) ? t.exercisePhaseModels.filter(isObject) : [];
  const reps = (Array.isArray(t.exercisePhaseRepetitionModels) ? t.exercisePhaseRepetitionModels : [])
    .filter(isObject)
    .map((r, i) => {
      const model = models.find((m) => m.phaseIndex === r.phaseIndex);
      const duration = isoDurationToSeconds(r.duration);
      const end = isoDurationToSeconds(r.splitTime) ?? duration;
      const speed = isObject(r.speedStatistic) ? r.speedStatistic : {};
      const hr = isObject(r.heartRateStatistic) ? r.heartRateStatistic : {};
      const power = isObject(r.powerStatistic) ? r.powerStatistic : {};
      const cadence = isObject(r.cadenceStatistic) ? r.cadenceStatistic : {};
      const avgSpeed = num(speed.avg);
      const maxSpeed = num(speed.max);
      const zoneType = model ? TARGET_ZONE_TYPES[String(model.zoneType)] : undefined;
      return compact({
        index: i + 1,
        phase: model ? presentText(model.name) : undefined,
        phase_index: num(r.phaseIndex),
        repetition: num(r.phaseRepetitionIndex),
        start_s: end !== undefined && duration !== undefined ? Math.max(0, end - duration) : undefined,
        end_s: end,
        duration_s: duration,
        distance_m: num(r.distance),
        hr_avg: num(hr.avg),
        hr_max: num(hr.max),
        avg_speed_kmh: avgSpeed === undefined ? undefined : round(avgSpeed, 2),
        max_speed_kmh: maxSpeed === undefined ? undefined : round(maxSpeed, 2),
        pace_s_per_km: avgSpeed !== undefined && avgSpeed > 0 ? Math.round(3600 / avgSpeed) : undefined,
        power_avg_w: num(power.avg),
        power_max_w: num(power.max),
        cadence_avg: num(cadence.avg),
        in_zone_s: isoDurationToSeconds(r.inZone),
        target_zone:
          model && zoneType ? { type: zoneType, lower: num(model.lowerZone), upper: num(model.upperZone) } : undefined,
        finished: r.finished === true,
      });
    });
  return compact({
    name: presentText(t.name),
    type: presentText(t.type),
    reached: typeof t.targetReached === 'boolean' ? t.targetReached : undefined,
    reps,
  });
}

function sampleNames(samples: unknown): string[] {
  if (!isObject(samples)) return [];
  const present = Object.keys(samples).filter((k) => samples[k] !== null && samples[k] !== undefined);
  const known = SAMPLE_ORDER.filter((k) => present.includes(k));
  const others = present.filter((k) => !SAMPLE_ORDER.includes(k)).sort();
  return [...known, ...others];
}

const dropMillis = (v: unknown): string | undefined => toIsoDateTime(v);
const r1 = (v: unknown): number | undefined => {
  const n = num(v);
  return n === undefined ? undefined : round(n, 1);
};

/** Analysis details → the compact canonical view (samples reduced to their metric names). */
export function toSessionDetails(body: unknown): Json {
  const b = isObject(body) ? body : {};
  const pick = (block: unknown, key: string): unknown => (isObject(block) ? block[key] : undefined);
  const exercises = exerciseList(b.exercises)
    .sort(byStart)
    .map((ex) => {
      const key = String(ex.__key);
      const stats = isObject(ex.trainingStatistic) ? ex.trainingStatistic : {};
      const laps = pick(b.laps, key);
      const auto = isObject(laps) && Array.isArray(laps.automaticLaps) ? laps.automaticLaps : [];
      const manual = isObject(laps) && Array.isArray(laps.manualLaps) ? laps.manualLaps : [];
      return compact({
        exercise_id: num(ex.id) ?? (/^\d+$/.test(key) ? Number(key) : undefined),
        sport_id: isObject(ex.sport) ? num(ex.sport.id) : undefined,
        start_time: dropMillis(ex.startTime),
        stop_time: dropMillis(ex.stopTime),
        duration_s: isoDurationToSeconds(ex.duration),
        distance_m: r1(ex.distance),
        calories: num(ex.calories),
        ascent_m: r1(ex.ascent),
        descent_m: r1(ex.descent),
        running_index: num(ex.runningIndex),
        recovery_time_s: isoDurationToSeconds(ex.recoveryTime),
        hr_bpm: stat(stats.HEART_RATE, 'HEART_RATE'),
        speed_kmh: stat(stats.SPEED, 'SPEED'),
        power_w: stat(stats.POWER, 'POWER'),
        cadence: stat(stats.CADENCE, 'CADENCE'),
        zones: zonesFor(pick(b.zones, key)),
        laps: auto.length || manual.length ? { automatic: auto, manual } : undefined,
        target: targetFor(pick(b.exerciseResultTargetData, key)),
        samples: sampleNames(pick(b.samples, key)),
      });
    });
  return compact({ id: presentId(b.id), exercises });
}

// ---------------------------------------------------------------- progress

/** Progress body → canonical summary; a missing body (upstream 404) reads as all zeros. */
export function toProgressSummary(body: unknown, from: string, to: string): Json {
  const b = isObject(body) ? body : {};
  const nonEmpty = (v: unknown): unknown => (Array.isArray(v) && v.length > 0 ? v : undefined);
  const ascent = num(b.totalAscent);
  const descent = num(b.totalDescent);
  return compact({
    from_date: from,
    to_date: to,
    number_of_sessions: num(b.totalTrainingSessionCount) ?? 0,
    total_duration_s: (isObject(b.totalDuration) ? msToSeconds(b.totalDuration.millis) : undefined) ?? 0,
    total_distance_m: num(b.totalDistance) ?? 0,
    total_kcal: num(b.totalCalories) ?? 0,
    total_ascent_m: ascent ? ascent : undefined,
    total_descent_m: descent ? descent : undefined,
    sport_breakdown: isObject(b.sportDistributions) ? b.sportDistributions : undefined,
    heart_rate_zones: nonEmpty(b.totalHeartRateZoneList),
    training_benefit_breakdown: nonEmpty(b.trainingBenefitDistributionList),
  });
}

// ---------------------------------------------------------------- manual session body

/** Validated create-session arguments. */
export type SessionInput = {
  name: string;
  date: string;
  time: string;
  duration_s: number;
  distance_m: number;
  kcal: number;
  hr_avg?: number;
  hr_max?: number;
  speed_kmh?: number;
  sport_id: number;
  note: string;
};

/** Canonical session → the create-session body (every key present; HR as decimal strings or ""). */
export function sessionToWire(s: SessionInput, offsetMinutes: number): Json {
  const hr = (v: number | undefined): string => (v ? String(v) : '');
  return {
    date: sessionWireDate(s.date, s.time, offsetMinutes),
    sport: s.sport_id,
    duration: s.duration_s,
    distance: s.distance_m,
    hrAverage: hr(s.hr_avg),
    hrMax: hr(s.hr_max),
    kiloCalories: s.kcal,
    speedAverage: s.speed_kmh ? s.speed_kmh : null,
    note: s.note,
    trainingSessionName: s.name,
    feeling: null,
    interpolatedHeartRateSamples: [],
    saveHeartRateSamples: false,
  };
}

// ---------------------------------------------------------------- login tokens

/**
 * `data.csrfToken` from the `PLAY_SESSION_FLOW` cookie, whose value is a JWT:
 * the middle segment is base64url JSON. Undefined when the value is not such a token.
 */
export function csrfTokenFromPlaySession(cookie: string | undefined): string | undefined {
  const parts = cookie?.split('.');
  if (!parts || parts.length !== 3) return undefined;
  try {
    const payload: unknown = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
    const data = isObject(payload) ? payload.data : undefined;
    return isObject(data) && typeof data.csrfToken === 'string' && data.csrfToken !== '' ? data.csrfToken : undefined;
  } catch {
    return undefined;
  }
}

/** True for the upstream "session expired" signal: a 401 whose JSON `error` is NotAuthenticated. */
export function isNotAuthenticated(status: number, body: string): boolean {
  if (status !== 401) return false;
  try {
    const v: unknown = JSON.parse(body);
    return isObject(v) && typeof v.error === 'string' && v.error.toLowerCase() === 'notauthenticated';
  } catch {
    return false;
  }
}

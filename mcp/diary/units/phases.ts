/**
 * The canonical phase model against the upstream phase tree (PHASE leaves and
 * REPEAT groups), both ways: what is written, and how a read-back compares.
 */
import { secondsToHms, hmsToSeconds } from './duration.ts';
import { intensityToWire, type Intensity, type WireIntensity } from './intensity.ts';
import { compact, isObject, num, presentText, type Json } from './json.ts';

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

/** Training targets: the create/update body and the upstream's answers to it. */
import { secondsToHms } from './duration.ts';
import { isObject, num, type Json } from './json.ts';
import { phasesToWire, type Phase } from './phases.ts';

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

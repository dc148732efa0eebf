/** Analysis bodies key their exercises by id (an object, not an array); these list them in start order. */
import { isObject, type Json } from './json.ts';

/** The exercises of an analysis body, each with its object key as `__key`. */
export function exerciseList(exercises: unknown): Json[] {
  if (!isObject(exercises)) return [];
  return Object.entries(exercises)
    .filter((e): e is [string, Json] => isObject(e[1]))
    .map(([key, ex]) => ({ ...ex, __key: key }));
}

/** Sort order of exercises: by `startTime`, earliest first. */
export function byStart(a: Json, b: Json): number {
  return String(a.startTime ?? '').localeCompare(String(b.startTime ?? ''));
}

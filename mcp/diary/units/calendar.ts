/** Calendar events: the training targets among them, as `list_training_targets` lines. */
import { isObject, presentText, type Json } from './json.ts';

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

/** A small log for the activity and webhook contract suites: events with their actors, positions and times. */
import type { Actor, DomainEvent, Recorded } from '../../domain/events.ts';
import { meta, positionOf, published, revision, streamOfPath } from './readmodel-events.ts';

const BASE = Date.parse('2026-01-01T00:00:00.000Z');
export const KEY: Actor = { kind: 'key', id: 7, name: 'ci' };
export const ALICE: Actor = { kind: 'user', name: 'alice' };
export const BOT: Actor = { kind: 'connection', id: 'c1', name: 'Claude', user: 'alice' };
export const SYSTEM: Actor = { kind: 'system', name: 'quarantine' };

export function subscriberLog() {
  const revisions = new Map<string, number>();
  const events: Recorded[] = [];
  const add = (stream: string, event: DomainEvent, actor: Actor = KEY, minute?: number): Recorded => {
    const revision = (revisions.get(stream) ?? -1) + 1;
    revisions.set(stream, revision);
    const n = events.length + 1;
    const at = new Date(BASE + (minute ?? n) * 60_000).toISOString();
    const recorded = { ...event, stream, revision, position: positionOf(n), meta: { actor, at } } as Recorded;
    events.push(recorded);
    return recorded;
  };
  let siteIds = 0;
  return {
    events,
    add,
    /** A publish of a site path (`docs/app`). */
    publish: (path: string, actor: Actor = KEY, minute?: number) => add(streamOfPath(path), published(path, ++siteIds, revision(`r${events.length + 1}`), meta(path)), actor, minute),
    unpublish: (path: string, actor: Actor = KEY) => add(streamOfPath(path), { type: 'SiteQuarantined', data: { siteId: 1 } }, actor),
    keyIssued: (id: number, actor: Actor = ALICE) =>
      add(`key-${id}`, { type: 'KeyIssued', data: { id, name: `key ${id}`, admin: false, grants: [], tokenHash: 'f'.repeat(64) } }, actor),
    allocated: () => add('sequence-site', { type: 'IdAllocated', data: { id: siteIds + 1 } }),
  };
}

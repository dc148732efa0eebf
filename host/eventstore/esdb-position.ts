import type { Position } from '@eventstore/db-client';

/**
 * EventStoreDB positions as the opaque strings of the `EventStore` port:
 * `"<commit>/<prepare>"`, both decimal. The events of one append share the commit part.
 */
export const encodePosition = (p: Position): string => `${p.commit}/${p.prepare}`;

export function parsePosition(text: string | undefined): Position | undefined {
  if (text === undefined) return undefined;
  const match = /^(\d{1,20})\/(\d{1,20})$/.exec(text);
  if (!match) throw new TypeError(`not an EventStoreDB position: ${JSON.stringify(text)}`);
  return { commit: BigInt(match[1]), prepare: BigInt(match[2]) };
}

/** Orders positions as `$all` does: by commit, then by prepare. */
export function comparePositions(a: Position, b: Position): number {
  if (a.commit !== b.commit) return a.commit < b.commit ? -1 : 1;
  if (a.prepare !== b.prepare) return a.prepare < b.prepare ? -1 : 1;
  return 0;
}

/** True when `head` lies after `after` (anything lies after the start). */
export const isAfter = (head: Position, after: Position | undefined): boolean =>
  after === undefined || comparePositions(head, after) > 0;

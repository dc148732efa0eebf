/**
 * Log positions are opaque strings that only their event-store adapter reads, but the
 * stores that keep the log's order in an index (the activity log, the webhook deliveries,
 * the MongoDB read model's stamps and checkpoint) must compare them. Both encodings the
 * adapters use are ordered numbers: the embedded log's global row number (`"1234"`) and
 * EventStoreDB's commit/prepare pair (`"1234/1200"`). `positionKey` turns either into a
 * fixed-width string whose text order is the log's order (each number zero-padded to 20
 * digits, the width of 2^64), so an index on it serves "newest first" and cursors. This is
 * the one encoding: every store stamps and compares with it.
 */
const POSITION = /^(\d{1,20})(?:\/(\d{1,20}))?$/;

const pad = (digits: string): string => digits.padStart(20, '0');

/**
 * The position's key. A key is itself a position of the same form, and `positionKey` of a
 * key is that key; so is that of a narrower zero-padded key (the MongoDB read model once
 * stamped the embedded log's positions padded to 15 digits): stored keys are compared
 * through it.
 */
export function positionKey(position: string): string {
  const match = POSITION.exec(position);
  if (!match) throw new TypeError(`not a log position: ${JSON.stringify(position)}`);
  return match[2] === undefined ? pad(match[1]!) : `${pad(match[1]!)}/${pad(match[2])}`;
}

/** Whether `text` is a log position of either adapter (a cursor from a client is checked with it). */
export function isPosition(text: string): boolean {
  return POSITION.test(text);
}

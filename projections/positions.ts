/**
 * Log positions are opaque strings that only their event-store adapter reads, but the
 * stores of the log's other subscribers (activity, webhook deliveries) must keep the
 * log's order in their indexes. Both encodings the adapters use are ordered numbers: the
 * embedded log's global row number (`"1234"`) and EventStoreDB's commit/prepare pair
 * (`"1234/1200"`). This turns either into a fixed-width string whose text order is the
 * log's order, so an index on it serves "newest first" and cursors.
 */
export function positionKey(position: string): string {
  if (/^\d{1,20}$/.test(position)) return position.padStart(20, '0');
  const pair = /^(\d{1,20})\/(\d{1,20})$/.exec(position);
  if (pair) return `${pair[1]!.padStart(20, '0')}/${pair[2]!.padStart(20, '0')}`;
  throw new TypeError(`not a log position: ${JSON.stringify(position)}`);
}

/** Whether `text` is a log position of either adapter (a cursor from a client is checked with it). */
export function isPosition(text: string): boolean {
  return /^\d{1,20}$/.test(text) || /^\d{1,20}\/\d{1,20}$/.test(text);
}

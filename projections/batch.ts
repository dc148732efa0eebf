import type { Recorded } from '../domain/events.ts';
import type { StreamRecord } from './documents.ts';
import { kindOfStream, projectBatch } from './project.ts';

/** One stream's record as the batch found it (`before`, undefined: none stored) and as it leaves it. */
export type StreamChange = { readonly before: StreamRecord | undefined; readonly after: StreamRecord };

/**
 * The in-memory half of a projection batch that spans several reads of the log: each
 * stream's record is loaded once, every event of the batch is folded into it, and the
 * adapter stores the final record once, so a stream touched by many events is written once
 * per batch. Memory grows with the streams touched, not the events: events are dropped as
 * soon as they are folded. Adapters load what `missing` names, then call `add`.
 */
export type BatchFold = {
  /** Streams of `events` whose record the batch has not loaded yet (each named once). */
  missing(events: readonly Recorded[]): string[];
  /** Folds `events` in, right after `missing(events)`; `loaded` holds the stored records of the streams it named (absent: none stored). */
  add(events: readonly Recorded[], loaded: ReadonlyMap<string, StreamRecord>): void;
  /** Number of streams the batch holds. */
  readonly streams: number;
  /** Every stream whose record moved past what was stored, with the stored record it started from. */
  changes(): StreamChange[];
  /** Every stream's record as the batch leaves it, moved or not (the events of a record already ahead move nothing). */
  records(): Iterable<StreamRecord>;
};

export function batchFold(): BatchFold {
  const before = new Map<string, StreamRecord | undefined>();
  const current = new Map<string, StreamRecord>();
  /** Streams named by the last `missing`: `add` registers them with what was loaded. */
  let pending: string[] = [];
  return {
    missing(events) {
      const wanted = new Set<string>();
      let previous = '';
      for (const e of events) {
        // The events of one append share a stream: check each run once.
        if (e.stream === previous) continue;
        previous = e.stream;
        if (!before.has(e.stream) && kindOfStream(e.stream)) wanted.add(e.stream);
      }
      pending = [...wanted];
      return pending;
    },
    add(events, loaded) {
      for (const stream of pending) {
        const stored = loaded.get(stream);
        before.set(stream, stored);
        if (stored) current.set(stream, stored);
      }
      pending = [];
      for (const [stream, record] of projectBatch(events, current)) current.set(stream, record);
    },
    get streams() {
      return before.size;
    },
    changes() {
      const out: StreamChange[] = [];
      for (const [stream, after] of current) {
        const was = before.get(stream);
        if (after !== was) out.push({ before: was, after });
      }
      return out;
    },
    records() {
      return current.values();
    },
  };
}

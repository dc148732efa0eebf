import type { Recorded } from '../domain/events.ts';
import type { StreamRecord } from './documents.ts';
import { kindOfStream, projectRecord } from './project.ts';

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
  /** An estimate of the heap the batch's records take, in bytes (see `bytesOfRecord`): what a caller bounds the batch by. */
  readonly bytes: number;
  /** Every stream whose record moved past what was stored, with the stored record it started from. */
  changes(): StreamChange[];
  /** Every stream's record as the batch leaves it, moved or not (the events of a record already ahead move nothing). */
  records(): Iterable<StreamRecord>;
};

/** A stream the batch holds: the stored record it started from and the record as folded so far. */
type Held = { readonly before: StreamRecord | undefined; after: StreamRecord | undefined };

/** One event in this many has its record's size taken for the estimate. */
const SAMPLE_EVERY = 128;
/** The estimate before any sample: about a site document of a few revisions. */
const FIRST_GUESS = 1_500;

/**
 * The heap a record takes, estimated from its JSON: V8 holds a site document of the
 * benchmark's (586 characters of JSON) in about 1,130 bytes (a heap snapshot of 10,000 of
 * them, with the batch's map entry), so twice the JSON length and a fixed part for the record.
 */
const bytesOfRecord = (r: StreamRecord): number => 2 * (r.doc === null ? 4 : JSON.stringify(r.doc).length) + 100;

export function batchFold(): BatchFold {
  const held = new Map<string, Held>();
  /** Streams named by the last `missing`: `add` registers them with what was loaded. */
  let pending: string[] = [];
  /** Streams whose stored record the batch holds beside its own (a second record each). */
  let stored = 0;
  let folded = 0;
  let sampled = 0;
  let sampledBytes = 0;
  return {
    missing(events) {
      const wanted = new Set<string>();
      let previous = '';
      for (const e of events) {
        // The events of one append share a stream: check each run once.
        if (e.stream === previous) continue;
        previous = e.stream;
        if (!held.has(e.stream) && kindOfStream(e.stream)) wanted.add(e.stream);
      }
      pending = [...wanted];
      return pending;
    },
    add(events, loaded) {
      for (const stream of pending) {
        const before = loaded.get(stream);
        if (before) stored++;
        held.set(stream, { before, after: before });
      }
      pending = [];
      let last: Held | undefined;
      for (const event of events) {
        // Consecutive events of one stream (one append) find their record once.
        const h = last?.after?.stream === event.stream ? last : held.get(event.stream);
        if (!h) continue; // a stream no document is projected from
        h.after = projectRecord(h.after, event);
        last = h;
        if (++folded % SAMPLE_EVERY === 0 && h.after) {
          sampled++;
          sampledBytes += bytesOfRecord(h.after);
        }
      }
    },
    get streams() {
      return held.size;
    },
    get bytes() {
      return (held.size + stored) * (sampled === 0 ? FIRST_GUESS : sampledBytes / sampled);
    },
    changes() {
      const out: StreamChange[] = [];
      for (const { before, after } of held.values()) if (after && after !== before) out.push({ before, after });
      return out;
    },
    *records() {
      for (const { after } of held.values()) if (after) yield after;
    },
  };
}

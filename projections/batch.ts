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

/** One event in this many (the first one first) has its record's size taken for the estimate. */
const SAMPLE_EVERY = 128;

/**
 * The heap a record takes, estimated from its JSON: V8 holds a site document of the
 * benchmark's (586 characters of JSON) in about 1,130 bytes (a heap snapshot of 10,000 of
 * them, with the batch's map entry), so twice the JSON length and a fixed part for the record.
 */
const bytesOfRecord = (r: StreamRecord): number => 2 * (r.doc === null ? 4 : JSON.stringify(r.doc).length) + 100;

export function batchFold(): BatchFold {
  const held = new Map<string, Held>();
  /** What the last `missing` found, event by event (undefined: a stream it named, or one not projected), for `add` to take. */
  let found: (Held | undefined)[] = [];
  let foundFor: readonly Recorded[] | undefined;
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
      found = new Array<Held | undefined>(events.length);
      foundFor = events;
      let previous: Held | undefined;
      for (let i = 0; i < events.length; i++) {
        const stream = events[i]!.stream;
        // The events of one append share a stream: look each run up once.
        const h = previous?.after?.stream === stream ? previous : held.get(stream);
        found[i] = h;
        previous = h;
        if (!h && kindOfStream(stream)) wanted.add(stream);
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
      const known = foundFor === events ? found : [];
      pending = [];
      found = [];
      foundFor = undefined;
      for (let i = 0; i < events.length; i++) {
        const event = events[i]!;
        const h = known[i] ?? held.get(event.stream);
        if (!h) continue; // a stream no document is projected from
        h.after = projectRecord(h.after, event);
        if (folded++ % SAMPLE_EVERY === 0 && h.after) {
          sampled++;
          sampledBytes += bytesOfRecord(h.after);
        }
      }
    },
    get streams() {
      return held.size;
    },
    get bytes() {
      return sampled === 0 ? 0 : ((held.size + stored) * sampledBytes) / sampled;
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

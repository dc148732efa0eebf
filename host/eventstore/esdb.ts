import {
  BACKWARDS,
  END,
  ErrorType,
  EventStoreDBClient,
  NO_STREAM,
  START,
  excludeSystemEvents,
  type AllStreamSubscription,
  type Position,
  type ReadStreamOptions,
} from '@eventstore/db-client';
import { StreamConflictError } from '../../domain/errors.ts';
import type { Recorded } from '../../domain/events.ts';
import type { EventStore } from '../../domain/ports.ts';
import { errorType, toEventData, toStored, type Stored } from './esdb-events.ts';
import { encodePosition, isAfter, parsePosition } from './esdb-position.ts';
import { pageWithoutSplit } from './page.ts';
import { checkAppend, checkLimit } from './validate.ts';
import { createWaiters } from './waiters.ts';

/** Safety net while callers wait: re-creates a dropped subscription and looks for missed events. */
const POLL_MS = 1000;
/** How long `waitForEvents` lets a new subscription confirm before relying on the poll alone. */
const CONFIRM_MS = 2000;
/** `$all` is read in chunks: system events are filtered here, so a chunk may yield fewer of ours. */
const CHUNK_EXTRA = 64;

/**
 * Answers once the server at `url` serves this service: one event of `$all` is read (what
 * the projector does first, so a user without read access to `$all` is found here), with a
 * deadline of `timeoutMs`. Rejects with the client's error otherwise (see `esdbRefused`).
 */
export async function probeEsdb(url: string, timeoutMs: number): Promise<void> {
  const client = EventStoreDBClient.connectionString(url);
  try {
    for await (const _ of client.readAll({ fromPosition: START, maxCount: 1, deadline: timeoutMs })) break;
  } finally {
    await client.dispose().catch(() => undefined);
  }
}

/** An error that waiting will not cure: the server answered, and refused these credentials or this user. */
export function esdbRefused(err: unknown): boolean {
  const e = err as { type?: unknown; code?: unknown } | null;
  // gRPC 7 PERMISSION_DENIED, 16 UNAUTHENTICATED.
  return e?.type === ErrorType.ACCESS_DENIED || e?.code === 7 || e?.code === 16;
}

/**
 * The production event store on EventStoreDB (`esdb://…` connection string). The client
 * reconnects by itself on the next call after a server restart; the subscription that
 * feeds `waitForEvents` is re-created when it drops.
 */
export function openEsdbEventStore(url: string): EventStore {
  const client = EventStoreDBClient.connectionString(url);
  const waiters = createWaiters<Position>(isAfter);
  let closed = false;
  let subscription: AllStreamSubscription | undefined;
  let ready: Promise<void> | undefined;
  let poller: NodeJS.Timeout | undefined;

  /** Our events after `after`, at least `want` of them unless `$all` ends first. */
  async function readOurs(after: Position | undefined, want: number): Promise<Stored[]> {
    const out: Stored[] = [];
    let cursor = after;
    for (;;) {
      const chunk = want - out.length + CHUNK_EXTRA;
      let seen = 0;
      for await (const resolved of client.readAll({ fromPosition: cursor ?? START, maxCount: chunk })) {
        seen++;
        const event = resolved.event;
        // Reading from a position may include the event at it: keep strictly later ones.
        if (!event || (cursor && !isAfter(event.position, cursor))) continue;
        cursor = event.position;
        const stored = toStored(event, undefined);
        if (stored) out.push(stored);
      }
      if (out.length >= want || seen < chunk) return out;
    }
  }

  async function streamHead(stream: string): Promise<{ revision: number; position: string }> {
    const { events, revision } = await readStream(stream, 'last');
    return { revision, position: events[0]?.position ?? '0/0' };
  }

  async function readStream(stream: string, which: 'all' | 'last' = 'all'): Promise<{ events: Recorded[]; revision: number }> {
    const events: Recorded[] = [];
    let revision = -1;
    const options: ReadStreamOptions = which === 'last' ? { direction: BACKWARDS, fromRevision: END, maxCount: 1 } : {};
    try {
      for await (const resolved of client.readStream(stream, options)) {
        if (!resolved.event) continue;
        revision = Math.max(revision, Number(resolved.event.revision));
        const commit = resolved.commitPosition;
        const fallback = commit === undefined || commit === 2n ** 64n - 1n ? undefined : { commit, prepare: commit };
        const stored = toStored(resolved.event, fallback);
        if (stored) events.push(stored.recorded);
      }
    } catch (err) {
      if (errorType(err) === ErrorType.STREAM_NOT_FOUND) return { events: [], revision: -1 };
      throw err;
    }
    return { events, revision };
  }

  /** One live subscription per store, started on the first wait and re-created when it drops. */
  function subscribe(): Promise<void> {
    if (ready) return ready;
    const sub = client.subscribeToAll({ fromPosition: END, filter: excludeSystemEvents() });
    subscription = sub;
    ready = new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, CONFIRM_MS);
      const settle = (): void => {
        clearTimeout(timer);
        resolve();
      };
      sub.once('confirmation', settle);
      const drop = (): void => {
        settle();
        if (subscription !== sub) return;
        subscription = undefined;
        ready = undefined;
      };
      sub.on('error', drop);
      sub.on('end', drop);
      sub.on('close', drop);
    });
    sub.on('data', (resolved) => {
      const event = resolved.event;
      if (event && toStored(event, undefined)) waiters.notify(event.position);
    });
    return ready;
  }

  /** Catches what a live subscription cannot see: events appended before it was (re)confirmed. */
  async function recheck(): Promise<void> {
    const afters = waiters.pending();
    if (afters.length === 0) return;
    let oldest: Position | undefined = afters[0];
    for (const a of afters) if (a === undefined || (oldest !== undefined && isAfter(oldest, a))) oldest = a;
    const [first] = await readOurs(oldest, 1);
    if (first) waiters.notify(parsePosition(first.recorded.position)!);
  }

  const tick = (): void => {
    if (closed || waiters.size === 0) {
      clearInterval(poller);
      poller = undefined;
      return;
    }
    const resubscribe = subscription === undefined;
    void (resubscribe ? subscribe() : Promise.resolve())
      .then(recheck)
      .catch(() => {}); // the server is away: the next tick tries again
  };

  const assertOpen = (): void => {
    if (closed) throw new Error('event store is closed');
  };

  return {
    readStream: async (stream) => {
      assertOpen();
      return readStream(stream);
    },

    streamRevision: async (stream) => {
      assertOpen();
      return (await streamHead(stream)).revision;
    },

    async append(stream, events, expected) {
      assertOpen();
      checkAppend(stream, events, expected);
      if (events.length === 0) {
        // Nothing to write: the revision check alone, as the embedded store does it.
        const head = await streamHead(stream);
        if (head.revision !== expected) throw new StreamConflictError(stream, expected, head.revision);
        return head;
      }
      const data = toEventData(events);
      try {
        const result = await client.appendToStream(stream, data, { expectedRevision: expected === -1 ? NO_STREAM : BigInt(expected) });
        const revision = Number(result.nextExpectedRevision);
        if (result.position) return { revision, position: encodePosition(result.position) };
        return { revision, position: (await streamHead(stream)).position };
      } catch (err) {
        if (errorType(err) === ErrorType.WRONG_EXPECTED_VERSION) {
          const actual = (err as { actualVersion?: bigint | typeof NO_STREAM }).actualVersion;
          throw new StreamConflictError(stream, expected, actual === undefined ? undefined : actual === NO_STREAM ? -1 : Number(actual));
        }
        throw err;
      }
    },

    async readAll(after, limit) {
      assertOpen();
      checkLimit(limit);
      const stored = await readOurs(parsePosition(after), limit + 1);
      return pageWithoutSplit(stored.slice(0, limit + 1), limit, (s) => s.commit).map((s) => s.recorded);
    },

    async waitForEvents(after, timeoutMs) {
      assertOpen();
      const from = parsePosition(after);
      const parked = waiters.wait(from, timeoutMs);
      if (!poller) {
        poller = setInterval(tick, POLL_MS);
        poller.unref();
      }
      // Subscribe first, then look: whatever lands after the look is seen by the subscription.
      // Not awaited: an unreachable server must not hold the caller past its timeout.
      void subscribe()
        .then(recheck)
        .catch(() => {}); // the poll tries again while the caller waits
      return parked;
    },

    async close() {
      if (closed) return;
      closed = true;
      clearInterval(poller);
      waiters.releaseAll();
      const sub = subscription;
      subscription = undefined;
      await sub?.unsubscribe().catch(() => {});
      await client.dispose();
    },
  };
}

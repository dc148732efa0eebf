/**
 * The table of 2025-era HTTP sessions. Clients on the SDK v1 never send the
 * DELETE that ends a session, so without limits every one of them stayed in
 * memory for the life of the process: here a session expires after an idle
 * period and the table holds at most `maxSessions`, evicting the least
 * recently used idle session to make room.
 */

/** What the table needs of a session's transport. */
export type Closable = { close(): Promise<void> };

/** Limits of the table. */
export type SessionLimits = {
  /** A session nobody has sent a request to for this long is closed. */
  idleMs: number;
  /** At most this many sessions at once. */
  maxSessions: number;
};

/** One live session. */
export type Session<T extends Closable> = {
  readonly id: string;
  readonly transport: T;
  /** Requests whose response has not ended yet (a tool call waiting on the user counts). */
  busy: number;
  timer: NodeJS.Timeout;
  closed: boolean;
};

/** The session table; see the module comment. */
export type SessionTable<T extends Closable> = {
  get(id: string): Session<T> | undefined;
  /** Makes room for one more session; false when the table is full of busy sessions. */
  makeRoom(): boolean;
  add(id: string, transport: T): Session<T>;
  /**
   * Runs one request of a session, keeping it alive until the response body ends.
   * A GET (the standing SSE stream for server messages) refreshes the session
   * but does not hold it busy, or a connected but idle client would never expire.
   */
  serve(s: Session<T>, method: string, handle: () => Promise<Response>): Promise<Response>;
  /** Forgets a session (the transport closed, or the client sent DELETE). */
  drop(id: string): void;
  size(): number;
  closeAll(): Promise<void>;
};

/** Creates an empty table. */
export function createSessionTable<T extends Closable>(limits: SessionLimits, log: (line: string) => void): SessionTable<T> {
  // Map order is use order: a touched session is moved to the end, so the first
  // idle one found is the least recently used.
  const sessions = new Map<string, Session<T>>();

  function close(id: string, why: string): void {
    const s = sessions.get(id);
    if (!s) return;
    drop(id);
    s.transport.close().catch((err: unknown) => log(`diary: closing ${why} session failed: ${err instanceof Error ? err.message : String(err)}`));
  }

  function drop(id: string): void {
    const s = sessions.get(id);
    if (!s) return;
    s.closed = true;
    clearTimeout(s.timer);
    sessions.delete(id);
  }

  function touch(s: Session<T>): void {
    if (s.closed) return;
    sessions.delete(s.id);
    sessions.set(s.id, s);
    s.timer.refresh();
  }

  return {
    get: (id) => sessions.get(id),
    makeRoom() {
      if (sessions.size < limits.maxSessions) return true;
      for (const [id, s] of sessions) {
        if (s.busy > 0) continue;
        log(`diary: session limit (${limits.maxSessions}) reached; closing the least recently used idle session`);
        close(id, 'evicted');
        return true;
      }
      return false;
    },
    add(id, transport) {
      // A busy session is left alone when its timer fires; the end of its last
      // request refreshes the timer, so it gets a full idle period from there.
      const timer = setTimeout(() => {
        if (sessions.get(id)?.busy === 0) close(id, 'expired');
      }, limits.idleMs).unref();
      const s: Session<T> = { id, transport, busy: 0, timer, closed: false };
      sessions.set(id, s);
      return s;
    },
    async serve(s, method, handle) {
      touch(s);
      if (method === 'GET') return handle();
      s.busy++;
      let settled = false;
      const settle = (): void => {
        if (settled) return;
        settled = true;
        s.busy--;
        touch(s);
      };
      try {
        return onBodyEnd(await handle(), settle);
      } catch (err) {
        settle();
        throw err;
      }
    },
    drop,
    size: () => sessions.size,
    async closeAll() {
      const all = [...sessions.values()];
      for (const id of [...sessions.keys()]) drop(id);
      await Promise.all(all.map((s) => s.transport.close()));
    },
  };
}

/** The same response, calling `done` once its body has ended, failed or been cancelled. */
function onBodyEnd(res: Response, done: () => void): Response {
  if (!res.body) {
    done();
    return res;
  }
  const reader = res.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(c) {
      try {
        const { done: end, value } = await reader.read();
        if (end) {
          done();
          c.close();
        } else c.enqueue(value);
      } catch (err) {
        done();
        c.error(err);
      }
    },
    cancel(reason) {
      done();
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
}

import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** Request headers must be complete within this (spec §2), authenticated or not. */
export const HEADERS_TIMEOUT_MS = 10_000;
/** The most one request may take to arrive, headers to last body byte; the pace guard ends a slow one much sooner. */
export const REQUEST_TIMEOUT_MS = 10 * 60_000;
/** How long a connection we answered and cut may read that answer before it is destroyed. */
const LINGER_MS = 1_000;
/**
 * The backstop's windows are this much longer than the upload guard's, so a route reading
 * an upload answers its own (clearer) 408 first.
 */
const BACKSTOP_GRACE_MS = 1_000;

export type Pace = { readonly windowMs: number; readonly minBytesPerSecond: number };

export type ConnectionLimits = {
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly pace: Pace;
};

/**
 * Owns every receive deadline of every connection, each with its own timer: the headers
 * of a request must be complete within `headersTimeoutMs` of the connection opening (or
 * of the previous exchange ending, on a kept-alive one); a body must keep the pace; no
 * request may take longer than `requestTimeoutMs` to arrive. A cut connection is
 * destroyed, not only ended: a client that never closes its side would otherwise hold
 * it forever after our 408.
 *
 * Node's own sweep (`headersTimeout`, `requestTimeout`) is switched off in its favour: it
 * only half-closed a timed-out connection, so a hostile client kept it (issue 24: three
 * header trickles held past 70 s among 20 slow bodies); these deadlines hold whatever
 * else is open, because each connection's is its own.
 */
export function guardConnections(server: Server, limits: ConnectionLimits): void {
  server.on('connection', (socket: Socket) => {
    const state: ConnectionState = { inFlight: 0 };
    connections.set(socket, state);
    socket.once('close', () => clearTimeout(state.headers));
    awaitHeaders(socket, state, limits.headersTimeoutMs);
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket as Socket;
    const state = connections.get(socket);
    guardRequestBody(req, res, limits);
    if (!state) return;
    clearTimeout(state.headers);
    state.inFlight++;
    // The next request's headers are due once this exchange is over: answered, and its
    // body read (Node reads the rest of an unread body before it parses the next request).
    // A pipelined request already in flight is not waiting for headers.
    res.once('finish', () => {
      const done = () => {
        if (--state.inFlight === 0) awaitHeaders(socket, state, limits.headersTimeoutMs);
      };
      if (req.complete) done();
      else req.once('end', done);
    });
  });
}

type ConnectionState = { inFlight: number; headers?: NodeJS.Timeout };
const connections = new WeakMap<Socket, ConnectionState>();

function awaitHeaders(socket: Socket, state: ConnectionState, timeoutMs: number): void {
  clearTimeout(state.headers);
  if (socket.destroyed || timeoutMs <= 0) return;
  const bytesAtStart = socket.bytesRead;
  state.headers = setTimeout(() => {
    // Nothing of a request arrived: an idle connection, closed without an answer.
    if (socket.bytesRead === bytesAtStart) socket.destroy();
    else closeWith(socket, 408, { error: 'the request headers did not arrive in time', code: 'invalid' });
  }, timeoutMs);
  state.headers.unref();
}

const hasBody = (req: IncomingMessage) => Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;

/**
 * The body of every request (any host, any route, read by a route or drained after the
 * answer) must keep the slow-client pace over every window, or the connection is cut; and
 * the whole request must have arrived within `requestTimeoutMs`. Routes that read uploads
 * have their own pace guard with a clearer 408 (api/upload.ts); this is the backstop for
 * everything else: a JSON body, a form, or a body nobody reads because the request was
 * refused before it. A body smaller than one window's worth must arrive within the window.
 */
function guardRequestBody(req: IncomingMessage, res: ServerResponse, limits: ConnectionLimits): void {
  if (req.complete || !hasBody(req)) return;
  const { pace } = limits;
  const socket = req.socket as Socket;
  const cut = (message: string) => {
    stop();
    if (!res.headersSent) {
      res.writeHead(408, { 'Content-Type': 'application/json; charset=utf-8', Connection: 'close' });
      res.end(JSON.stringify({ error: message, code: 'invalid' }));
      res.once('finish', () => socket.destroy());
      setTimeout(() => socket.destroy(), LINGER_MS).unref();
    } else socket.destroy();
  };
  let paceTimer: NodeJS.Timeout | undefined;
  if (pace.windowMs > 0 && pace.minBytesPerSecond > 0) {
    const windowMs = pace.windowMs + BACKSTOP_GRACE_MS;
    const floor = (pace.minBytesPerSecond * windowMs) / 1000;
    // Bytes off the wire, whoever reads them (Node's parser consumes the socket natively, so
    // there are no 'data' events to count).
    let windowStart = socket.bytesRead;
    paceTimer = setInterval(() => {
      const arrived = socket.bytesRead - windowStart;
      windowStart = socket.bytesRead;
      if (req.complete) return stop();
      // Paused by the route (backpressure from the store) is not the client's fault.
      if (req.readableFlowing === false && req.readableLength > 0) return;
      if (arrived < floor) cut(`the request body arrived too slowly (under ${pace.minBytesPerSecond} bytes/s); the connection is closed`);
    }, windowMs);
    paceTimer.unref();
  }
  const deadline =
    limits.requestTimeoutMs > 0 ? setTimeout(() => cut(`the request did not arrive within ${limits.requestTimeoutMs / 1000} s; the connection is closed`), limits.requestTimeoutMs) : undefined;
  deadline?.unref();
  // Removed again when done: a proxy's keep-alive connection carries many requests.
  const stop = () => {
    clearInterval(paceTimer);
    clearTimeout(deadline);
    req.off('end', stop);
    socket.off('close', stop);
  };
  req.once('end', stop);
  socket.once('close', stop);
}

/**
 * Answers on a raw connection (no request object: the parser refused it, its headers
 * were late, or it was over the cap) with the API's JSON error, then closes it. The client
 * gets a moment to read the answer; after that the connection is destroyed whether or not
 * it closed its side.
 */
export function closeWith(socket: Socket, status: 400 | 408 | 429, body: { error: string; code: string }, headers: Record<string, string> = {}): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const reason = { 400: 'Bad Request', 408: 'Request Timeout', 429: 'Too Many Requests' }[status];
  const text = JSON.stringify(body);
  const extra = Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\n${extra}Connection: close\r\n\r\n${text}`);
  const linger = setTimeout(() => socket.destroy(), LINGER_MS);
  linger.unref();
  socket.once('close', () => clearTimeout(linger));
}

/**
 * Requests Node's parser refuses before any handler runs: a malformed or over-long
 * request line or headers answer 400 (spec §2), as the API's JSON error; the connection
 * is then closed.
 */
export function answerClientError(err: Error & { code?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') return closeWith(socket, 408, { error: 'the request headers did not arrive in time', code: 'invalid' });
  closeWith(socket, 400, { error: err.code === 'HPE_HEADER_OVERFLOW' ? 'the request line or headers are too long' : 'malformed request', code: 'invalid' });
}

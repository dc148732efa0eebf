import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** Request headers must be complete within this (spec §2), authenticated or not. */
export const HEADERS_TIMEOUT_MS = 10_000;
/** How often Node checks open connections against the header and request timeouts (its default, 30 s, would let a trickle live 40 s). */
export const CONNECTION_CHECK_MS = 1_000;

export type Pace = { readonly windowMs: number; readonly minBytesPerSecond: number };

const hasBody = (req: IncomingMessage) => Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;

/**
 * The body of every request (any host, any route, read by a route or drained after the
 * answer) must keep the slow-client pace over windows of twice the upload guard's, or the
 * connection is cut. Routes that read uploads have their own guard with a clearer 408
 * (api/multipart.ts); this one is the backstop for everything else: a JSON body, a form,
 * or a body nobody reads because the request was refused before it.
 */
export function guardBodyPace(req: IncomingMessage, res: ServerResponse, pace: Pace): void {
  if (pace.windowMs <= 0 || pace.minBytesPerSecond <= 0 || req.complete || !hasBody(req)) return;
  const windowMs = 2 * pace.windowMs;
  const floor = (pace.minBytesPerSecond * windowMs) / 1000;
  // Bytes off the wire, whoever reads them (Node's parser consumes the socket natively, so
  // there are no 'data' events to count).
  const socket = req.socket as Socket;
  let windowStart = socket.bytesRead;
  const timer = setInterval(() => {
    const arrived = socket.bytesRead - windowStart;
    windowStart = socket.bytesRead;
    if (req.complete) return stop();
    // Paused by the route (backpressure from the store) is not the client's fault.
    if (req.readableFlowing === false && req.readableLength > 0) return;
    if (arrived >= floor) return;
    stop();
    if (!res.headersSent) {
      res.writeHead(408, { 'Content-Type': 'application/json; charset=utf-8', Connection: 'close' });
      res.end(JSON.stringify({ error: `the request body arrived too slowly (under ${pace.minBytesPerSecond} bytes/s); the connection is closed`, code: 'invalid' }));
      res.once('finish', () => socket.destroy());
    } else socket.destroy();
  }, windowMs);
  timer.unref();
  // Removed again when done: a proxy's keep-alive connection carries many requests.
  const stop = () => {
    clearInterval(timer);
    req.off('end', stop);
    socket.off('close', stop);
  };
  req.once('end', stop);
  socket.once('close', stop);
}

/**
 * Requests Node's parser refuses before any handler runs: a malformed or over-long
 * request line or headers answer 400 (spec §2), a header timeout 408, both as the API's
 * JSON error; the connection is then closed.
 */
export function answerClientError(err: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable || err.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const timeout = err.code === 'ERR_HTTP_REQUEST_TIMEOUT';
  const body = JSON.stringify(
    timeout
      ? { error: 'the request headers did not arrive in time', code: 'invalid' }
      : { error: err.code === 'HPE_HEADER_OVERFLOW' ? 'the request line or headers are too long' : 'malformed request', code: 'invalid' },
  );
  socket.end(`HTTP/1.1 ${timeout ? '408 Request Timeout' : '400 Bad Request'}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

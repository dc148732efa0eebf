import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ClientError } from './errors.ts';

export type Answer = { status: number; statusText: string; headers: IncomingHttpHeaders; text: string };

/** Write errors that mean "the server stopped reading", not "there is no answer". */
const CUT_OFF = new Set(['EPIPE', 'ECONNRESET']);
/**
 * How long an answer may still arrive after such an error. Node reports the failed write
 * and tears the socket down in the same step in which it parses what was already
 * received, so an answer on the wire shows up at once or never; this covers the event order.
 */
const GRACE_MS = 250;

/**
 * Sends a request and returns the server's answer, also when the server answers before
 * reading the whole body: a refused key (401) or a missing grant (403) is answered as soon
 * as the headers are in, and the server then stops reading. Waiting for the upload to
 * finish would wait forever, so the answer decides and whatever was not sent is dropped.
 */
export async function send(url: URL, method: string, headers: Record<string, string>, body?: Readable | string | Buffer, idleTimeoutMs?: number): Promise<Answer> {
  const req = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, { method, headers });
  // A peer that stops answering altogether (only the calls to GitHub set this: the service's own uploads may wait on a slow disk).
  if (idleTimeoutMs) req.setTimeout(idleTimeoutMs, () => req.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })));
  let sent = false;
  let answered = false;
  req.once('finish', () => (sent = true));
  const answer = new Promise<Answer>((resolve, reject) => {
    let responded = false;
    req.once('response', (res) => {
      responded = true;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.once('end', () => {
        answered = true;
        resolve({ status: res.statusCode ?? 0, statusText: res.statusMessage ?? '', headers: res.headers, text: Buffer.concat(chunks).toString('utf8') });
      });
      res.once('error', reject);
      res.once('close', () => {
        if (!res.complete) reject(Object.assign(new Error('the connection closed in the middle of the answer'), { code: 'ECONNRESET' }));
      });
    });
    req.on('error', (err: Error & { code?: string }) => {
      if (responded) return; // the answer's own end, error or close settles it
      if (err.code && CUT_OFF.has(err.code)) setTimeout(() => reject(err), GRACE_MS);
      else reject(err);
    });
  });
  // A body in memory is written at once (most uploads: a stream and a pipeline per request
  // cost more CPU than the request itself); a stream is piped. Errors of the upload itself (a
  // file that cannot be read, a cut connection) reach `req` as its 'error' event; the pipeline's
  // promise only has to end without an unhandled rejection.
  const stream = body === undefined || typeof body === 'string' || Buffer.isBuffer(body) ? undefined : body;
  const upload = stream ? pipeline(stream, req).catch(() => undefined) : (req.end(body), undefined);
  try {
    return await answer;
  } finally {
    // A whole request and a whole answer leave the connection to the agent, for the next
    // request (keep-alive: one upload after another needs no new connection). Anything
    // else (an answer before the body was sent) ends it.
    if (!(sent && answered)) {
      stream?.destroy();
      req.destroy();
    }
    await upload;
  }
}

/** The server's JSON `error`; else a short plain-text body; else the status text. */
export function answerReason(answer: Answer): string {
  try {
    const body = JSON.parse(answer.text) as { error?: unknown };
    if (typeof body.error === 'string' && body.error) return body.error;
  } catch {
    /* not JSON: a proxy's page, or the service's plain "unknown host" */
  }
  const text = answer.text.trim();
  if (text && text.length <= 200 && !text.startsWith('<')) return text.replace(/\s+/g, ' ');
  return answer.statusText || 'no reason given';
}

/** The JSON body of a successful answer, or the failure as one line: `<what> failed (<status>): <the server's error>`. */
export function expectJson<T>(answer: Answer, what: string, base: URL): T {
  if (answer.status >= 200 && answer.status < 300) {
    try {
      return (answer.text ? JSON.parse(answer.text) : undefined) as T;
    } catch {
      throw new ClientError(`the server answered ${answer.status} but not with JSON (is ${base.origin} the sites service?)`);
    }
  }
  if (answer.status === 404 && answer.text.trim() === 'unknown host') {
    throw new ClientError(`${what} failed (404): the service does not answer the host ${base.host}; give --url with its base domain (e.g. http://localhost:8080)`);
  }
  const location = answer.headers.location;
  if (answer.status >= 300 && answer.status < 400 && location) throw new ClientError(`${what} failed (${answer.status}): the server redirects to ${location}; use that as --url`);
  throw new ClientError(`${what} failed (${answer.status}): ${answerReason(answer)}`);
}

const REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection closed by the server',
  ETIMEDOUT: 'timed out',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'name lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
};

/** A failure to talk to the service at all, in words: the most common one is "it is not running". */
export function unreachable(err: unknown, base: URL): unknown {
  const e = err as NodeJS.ErrnoException;
  const where = base.origin;
  if (e?.code === 'ECONNREFUSED') return new ClientError(`cannot reach ${where} (connection refused) — is the service running?`);
  if (e?.code === 'EPIPE' || e?.code === 'ECONNRESET') return new ClientError(`${where} closed the connection without an answer (${REASONS[e.code]})`);
  if (e?.path) return err; // reading a file failed: the caller names the file
  if (e?.code && REASONS[e.code]) return new ClientError(`cannot reach ${where} (${REASONS[e.code]})`);
  if (/CERT|TLS|SSL/.test(e?.code ?? '')) return new ClientError(`cannot reach ${where} (TLS: ${e.message})`);
  return err;
}

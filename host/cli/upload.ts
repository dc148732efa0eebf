import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export type Answer = { status: number; statusText: string; headers: IncomingHttpHeaders; text: string };

/** Write errors that mean "the server stopped reading", not "there is no answer". */
const CUT_OFF = new Set(['EPIPE', 'ECONNRESET']);
/**
 * How long an answer may still arrive after such an error. Node reports the failed write
 * and tears the socket down in the same step in which it parses what was already
 * received, so an answer on the wire shows up at once or never; this only covers the
 * event order.
 */
const GRACE_MS = 250;

/**
 * POSTs a streamed body and returns the server's answer, also when the server answers
 * before reading the whole body. A refused key (401) or a missing grant (403) is
 * answered as soon as the headers and the first form part are in; the server then stops
 * reading and may close the connection. Waiting for the upload to finish would then wait
 * forever (the socket never drains again; the CLI used to exit with status 13 and say
 * nothing), so the answer decides, and whatever was not sent yet is dropped.
 */
export async function postStream(url: URL, headers: Record<string, string>, body: Readable): Promise<Answer> {
  const req = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, { method: 'POST', headers });
  const answer = new Promise<Answer>((resolve, reject) => {
    let responded = false;
    req.once('response', (res) => {
      responded = true;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.once('end', () =>
        resolve({ status: res.statusCode ?? 0, statusText: res.statusMessage ?? '', headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
      );
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
  // Errors of the upload itself (a file that cannot be read, a cut connection) reach `req`
  // as its 'error' event; this promise only has to end without an unhandled rejection.
  const upload = pipeline(body, req).catch(() => undefined);
  try {
    return await answer;
  } finally {
    body.destroy();
    req.destroy();
    await upload;
  }
}

/**
 * One upstream HTTP exchange with the jar, the browser-like headers, a timeout
 * that covers the whole exchange (headers and body), and manual redirects.
 */
import { cookieHeader, storeCookies, type CookieJar } from './jar.ts';
import { UpstreamError } from './errors.ts';

/** A request as the client describes it; the body is already serialised. */
export type HttpRequest = {
  method: 'GET' | 'POST' | 'DELETE';
  url: string;
  accept?: string;
  contentType?: string;
  body?: string;
  headers?: Record<string, string>;
};

/** A response read to the end. */
export type HttpResponse = { status: number; location?: string; text: string; url: string };

const USER_AGENT =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';

function causeOf(err: unknown): string {
  const e = err as { cause?: { code?: string; message?: string }; message?: string };
  const c = e?.cause;
  if (c?.code && c.message && !c.message.includes(c.code)) return `${c.message} (${c.code})`;
  return c?.message ?? c?.code ?? e?.message ?? String(err);
}

/** Sends one request (no redirect following); cookies of the response go into the jar. */
export async function send(jar: CookieJar, req: HttpRequest, timeoutMs: number, action: string): Promise<HttpResponse> {
  const headers: Record<string, string> = { 'User-Agent': USER_AGENT, Accept: req.accept ?? 'application/json', ...req.headers };
  // Non-GET requests without it are refused with an HTML 403 by the flow host.
  if (req.method !== 'GET') headers['X-Requested-With'] = 'XMLHttpRequest';
  if (req.contentType) headers['Content-Type'] = req.contentType;
  const cookie = cookieHeader(jar, req.url);
  if (cookie) headers.Cookie = cookie;
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), timeoutMs);
  try {
    const res = await fetch(req.url, { method: req.method, headers, body: req.body, redirect: 'manual', signal: ctl.signal });
    storeCookies(jar, req.url, res.headers.getSetCookie());
    const text = await res.text();
    return { status: res.status, location: res.headers.get('location') ?? undefined, text, url: req.url };
  } catch (err) {
    if (ctl.signal.aborted) throw new UpstreamError(`${action} failed: timed out after ${timeoutMs} ms`);
    throw new UpstreamError(`${action} failed: ${causeOf(err)}`);
  } finally {
    clearTimeout(timer);
  }
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Sends a request and follows redirects by hand (each hop gets its own timeout), at most `maxHops`. */
export async function follow(jar: CookieJar, req: HttpRequest, timeoutMs: number, action: string, maxHops = 10): Promise<HttpResponse> {
  let current = req;
  for (let hop = 0; ; hop++) {
    const res = await send(jar, current, timeoutMs, action);
    if (!REDIRECTS.has(res.status) || !res.location) return res;
    if (hop >= maxHops) throw new UpstreamError(`${action} failed: more than ${maxHops} redirects`);
    const url = new URL(res.location, current.url).toString();
    // 301/302/303 after a POST continue as a body-less GET, as browsers do.
    current =
      res.status === 307 || res.status === 308
        ? { ...current, url }
        : { method: 'GET', url, accept: current.accept };
  }
}

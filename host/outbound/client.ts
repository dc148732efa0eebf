import { isIP } from 'node:net';
import { Client, type Dispatcher } from 'undici';
import type { OutboundHttp, OutboundRefusal, OutboundRequest, OutboundResponse } from '../../domain/ports.ts';
import { classifyAddress } from './address-policy.ts';
import { LookupsBusy, privateResolver, publicResolver, type Resolver } from './dns.ts';

export type { Resolver } from './dns.ts';

export type OutboundOptions = {
  /**
   * Allow loopback, private and other non-public destinations, and `http:`. For a service
   * whose receivers (webhook relays, a client's metadata server) live on its own network.
   */
  readonly allowPrivate: boolean;
  /** Whole-request deadline: resolution, connection, TLS, headers and body. */
  readonly timeoutMs: number;
  /** The most response body bytes read; more ends the request (`too_large`). */
  readonly maxBytes: number;
  readonly userAgent?: string;
  /** Tests only: a resolver standing in for DNS. */
  readonly resolve?: Resolver;
  /** Tests only: the name servers the public resolver asks instead of /etc/resolv.conf's. */
  readonly nameServers?: readonly string[];
  /** Tests only: arms each request's deadline instead of `setTimeout`, so a test fires it when it chooses. */
  readonly timer?: DeadlineTimer;
};

/** Arms a deadline of `ms` that calls `fire`; answers the function that disarms it. */
export type DeadlineTimer = (ms: number, fire: () => void) => () => void;

/** How long a kept-alive connection may sit idle: below the 5 s keep-alive timeout of Node's HTTP server. */
const IDLE_MS = 4_000;
/** Destinations with connections kept at once, and connections to each. */
const MAX_DESTINATIONS = 64;
const CONNECTIONS = 4;

const realTimer: DeadlineTimer = (ms, fire) => {
  const timer = setTimeout(fire, ms);
  return () => clearTimeout(timer);
};

/** One kept-alive connection (an undici Client, one request at a time), with what this client knows of it. */
type Connection = { readonly client: Client; inFlight: number; /** Has answered: its socket may have sat idle since. */ answered: boolean };

/** A destination that passed the checks: the URL and the one address the connection goes to. */
type Destination = { readonly url: URL; readonly hostname: string; readonly address: string };

const refusal = (reason: OutboundRefusal['reason'], message: string): { ok: false; refusal: OutboundRefusal } => ({ ok: false, refusal: { reason, message } });

/**
 * The outbound HTTP client (DESIGN.md "Trust boundary"). Every request resolves the host
 * itself, checks every address it resolves to, and connects to the first one by address
 * (TLS still verifies the certificate for the host name), so the name cannot resolve to
 * something else between the check and the connection (DNS rebinding); the next request
 * resolves and checks again. A name with any refused address is refused as a whole.
 * Redirects come back as they are, never followed; the answer is not decompressed
 * (`Accept-Encoding: identity`), so `maxBytes` bounds what is held.
 *
 * Requests go through undici (the HTTP/1.1 client of Node's own fetch): its dispatch
 * interface, without streams, costs a request a quarter less CPU than `node:http`'s request
 * and agent (90–108 against 123–161 µs, one at a time to the webhook bench's receiver), and
 * a webhook lane waits on exactly that between an answer and its next request.
 *
 * Connections are kept alive and reused (a webhook's deliveries go one after another to the
 * same receiver: a handshake each cost the sender and the projector beside it CPU, and
 * TIME_WAIT sockets). A pool is keyed by what was checked: the address connected to, the
 * port and the TLS server name, so a name that now resolves elsewhere never gets a socket
 * opened to its old address; a request still resolves and checks first. A socket is reused
 * only after a complete answer (a refused or timed-out one is destroyed), stays idle at most
 * IDLE_MS (below the 5 s after which Node servers close idle connections), and a request
 * that finds its reused socket closed by the receiver meanwhile is sent again once on a
 * new connection.
 */
export function createOutbound(opts: OutboundOptions): OutboundHttp {
  /**
   * The connections of each checked destination, keyed by the address connected to, the port
   * and the TLS server name (certificates are checked for the host name, the socket goes to
   * the address). Least recently used first: past MAX_DESTINATIONS the oldest are closed.
   */
  const destinations = new Map<string, Connection[]>();
  /**
   * An idle connection of the destination (the oldest: the others then idle out), a new one
   * up to CONNECTIONS, or else the least busy, which queues the request. Chosen by this
   * client's own count of requests in flight, so a request that follows an answer at once
   * goes down the connection that just answered.
   */
  const connectionFor = (dest: Destination): Connection => {
    const key = `${dest.url.protocol}//${dest.address} ${dest.url.port} ${dest.hostname}`;
    let connections = destinations.get(key);
    if (connections) destinations.delete(key);
    else {
      if (destinations.size >= MAX_DESTINATIONS) {
        const [oldest, stale] = destinations.entries().next().value!;
        destinations.delete(oldest);
        for (const c of stale) void c.client.close();
      }
      connections = [];
    }
    destinations.set(key, connections);
    let connection = connections.find((c) => c.inFlight === 0);
    if (!connection && connections.length < CONNECTIONS) {
      connection = { client: new Client(originOf(dest), connectionOptions(dest)), inFlight: 0, answered: false };
      connections.push(connection);
    }
    return connection ?? connections.reduce((a, b) => (b.inFlight < a.inFlight ? b : a));
  };
  const connectionOptions = (dest: Destination) => ({
    pipelining: 1,
    keepAliveTimeout: IDLE_MS,
    keepAliveMaxTimeout: IDLE_MS,
    // The request's own deadline ends it sooner; these only bound what outlives a request that gave up.
    connectTimeout: opts.timeoutMs,
    headersTimeout: opts.timeoutMs,
    bodyTimeout: opts.timeoutMs,
    connect: isIP(dest.hostname) ? {} : { servername: dest.hostname },
  });
  // Names resolve through the name servers, cancellably (dns.ts). With the private switch,
  // names of the operator's own network (/etc/hosts, mDNS) must resolve too, and only the
  // operating system's lookup knows them.
  const servers = opts.nameServers ? { servers: opts.nameServers } : {};
  const resolve = opts.resolve ?? (opts.allowPrivate ? privateResolver(servers) : publicResolver(servers));
  const deadline = (ms: number) => startDeadline(ms, opts.timer ?? realTimer);

  /** What a URL says before any lookup, remembered by its text (a webhook's deliveries all go to one). */
  const targets = new Map<string, ReturnType<typeof parseTarget>>();
  const targetOf = (raw: string) => {
    let target = targets.get(raw);
    if (target === undefined) {
      if (targets.size >= 256) targets.clear();
      target = parseTarget(raw);
      targets.set(raw, target);
    }
    return target;
  };
  function parseTarget(raw: string): { ok: true; url: URL; hostname: string } | { ok: false; refusal: OutboundRefusal } {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return refusal('url', 'the address is not an absolute URL');
    }
    if (url.protocol !== 'https:' && !(opts.allowPrivate && url.protocol === 'http:')) {
      return refusal('scheme', `only https URLs are fetched${opts.allowPrivate ? ' (or http)' : ''}, not ${url.protocol}`);
    }
    if (url.username || url.password) return refusal('url', 'the URL carries user information');
    return { ok: true, url, hostname: url.hostname.replace(/^\[|\]$/g, '') };
  }

  async function destination(raw: string, clock: Deadline): Promise<{ ok: true; dest: Destination } | { ok: false; refusal: OutboundRefusal }> {
    const target = targetOf(raw);
    if (!target.ok) return target;
    const { url, hostname } = target;
    let addresses: readonly { address: string }[];
    if (isIP(hostname)) {
      addresses = [{ address: hostname }];
    } else {
      try {
        addresses = await Promise.race([resolve(hostname, { signal: clock.signal, timeoutMs: clock.left() }), clock.aborted]);
      } catch (err) {
        if (err instanceof Timeout || clock.expired) throw new Timeout();
        if (err instanceof LookupsBusy) return refusal('busy', err.message);
        return refusal('dns', `${hostname} does not resolve (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
      }
      if (addresses.length === 0) return refusal('dns', `${hostname} does not resolve`);
    }
    if (!opts.allowPrivate) {
      for (const { address } of addresses) {
        const verdict = classifyAddress(address);
        if (!verdict.allowed) {
          const where = address === hostname ? address : `${hostname} resolves to ${address}`;
          return refusal('address', `${where}, a ${verdict.range} address: the service does not connect to its own network`);
        }
      }
    }
    return { ok: true, dest: { url, hostname, address: addresses[0]!.address } };
  }

  function send(
    dest: Destination,
    req: OutboundRequest,
    maxBytes: number,
    clock: Deadline,
    onSent: (() => void) | undefined,
    retry = true,
  ): Promise<{ ok: true; response: OutboundResponse } | { ok: false; refusal: OutboundRefusal }> {
    const { url } = dest;
    const headers: Record<string, string> = { 'user-agent': opts.userAgent ?? 'sites-service', 'accept-encoding': 'identity' };
    for (const name in req.headers) headers[name.toLowerCase()] = req.headers[name]!;
    headers.host = url.host;
    // A retry goes on a connection of its own, closed after it.
    const connection: Connection = retry ? connectionFor(dest) : { client: new Client(originOf(dest), connectionOptions(dest)), inFlight: 0, answered: false };
    const reused = connection.answered;
    connection.inFlight++;
    return new Promise((settle) => {
      let done = false;
      let started = false;
      let status = 0;
      let responseHeaders: Record<string, string> = {};
      const chunks: Buffer[] = [];
      let size = 0;
      let abort: ((err?: Error) => void) | undefined;
      const finish = (result: { ok: true; response: OutboundResponse } | { ok: false; refusal: OutboundRefusal }) => {
        if (done) return;
        done = true;
        connection.inFlight--;
        clock.whenExpired(undefined);
        if (!retry) void connection.client.close();
        settle(result);
      };
      const tooLarge = () => {
        finish(refusal('too_large', `the answer is larger than ${maxBytes} bytes`));
        // Aborting destroys the connection: an answer not read to its end never goes back to the pool.
        abort?.();
      };
      const timedOut = () => refusal('timeout', `no complete answer from ${url.host} in time`);
      // The deadline aborts the request (which destroys its connection); one still waiting for a connection ends now and is aborted once it gets one.
      clock.whenExpired(() => {
        if (abort) abort(new Error('deadline'));
        else finish(timedOut());
      });
      // onRequestSent: undici calls it on a handler of this (legacy) form once the request is written, though its types leave it out.
      const handler: Dispatcher.DispatchHandler & { onRequestSent(): void } = {
        onRequestSent() {
          onSent?.();
        },
        onConnect(a) {
          abort = a;
          if (clock.expired || done) a(new Error('deadline'));
        },
        onHeaders(statusCode, raw) {
          started = true;
          status = statusCode;
          responseHeaders = flatHeaders(raw);
          const declared = Number(responseHeaders['content-length']);
          if (Number.isFinite(declared) && declared > maxBytes) {
            tooLarge();
            return false;
          }
          return true;
        },
        onData(chunk) {
          size += chunk.length;
          if (size > maxBytes) {
            tooLarge();
            return false;
          }
          chunks.push(chunk);
          return true;
        },
        onComplete() {
          connection.answered = true;
          finish({ ok: true, response: { status, headers: responseHeaders, body: Buffer.concat(chunks) } });
        },
        onError(err: NodeJS.ErrnoException) {
          if (done) return;
          if (clock.expired) return finish(timedOut());
          // A kept-alive connection the receiver closed while it sat idle: nothing was answered, send again on a new one.
          if (retry && reused && !started && DROPPED.has(err.code ?? '')) {
            done = true;
            connection.inFlight--;
            clock.whenExpired(undefined);
            return void send(dest, req, maxBytes, clock, onSent, false).then(settle);
          }
          finish(refusal('network', `${url.host}: ${networkCode(err)}`));
        },
      };
      connection.client.dispatch({ path: `${url.pathname}${url.search}`, method: req.method ?? 'GET', headers, body: req.body ?? null }, handler);
    });
  }

  return {
    async check(url) {
      const clock = deadline(opts.timeoutMs);
      try {
        const result = await destination(url, clock);
        return result.ok ? undefined : result.refusal;
      } catch (err) {
        if (err instanceof Timeout) return { reason: 'timeout', message: `the name did not resolve in ${opts.timeoutMs} ms` };
        throw err;
      } finally {
        clock.clear();
      }
    },
    async request(req) {
      const timeoutMs = Math.min(req.timeoutMs ?? opts.timeoutMs, opts.timeoutMs);
      const maxBytes = Math.min(req.maxBytes ?? opts.maxBytes, opts.maxBytes);
      const clock = deadline(timeoutMs);
      try {
        const checked = await destination(req.url, clock);
        if (!checked.ok) return checked;
        return await send(checked.dest, req, maxBytes, clock, req.onSent && once(req.onSent));
      } catch (err) {
        if (err instanceof Timeout) return refusal('timeout', `no complete answer in ${timeoutMs} ms`);
        throw err;
      } finally {
        clock.clear();
      }
    },
  };
}

/**
 * One deadline for a whole request: aborts `signal` (the name lookup), calls the `onExpire`
 * callback (the connection: destroyed), and rejects `aborted` (for what does not stop on
 * the signal, like `dns.lookup`). The AbortController and that promise are made only when a
 * lookup asks for them: a request to an address literal (a receiver next door) costs one timer.
 */
type Deadline = ReturnType<typeof startDeadline>;
function startDeadline(ms: number, arm: DeadlineTimer) {
  let controller: AbortController | undefined;
  let expired = false;
  let onExpire: (() => void) | undefined;
  let rejectAborted: ((err: Timeout) => void) | undefined;
  let aborted: Promise<never> | undefined;
  const end = Date.now() + ms;
  const disarm = arm(ms, () => {
    expired = true;
    controller?.abort();
    onExpire?.();
    rejectAborted?.(new Timeout());
  });
  return {
    /** Rejects at the deadline (made when first asked for: only a name lookup races it). */
    get aborted(): Promise<never> {
      if (!aborted) {
        aborted = new Promise<never>((_, reject) => {
          rejectAborted = reject;
          if (expired) reject(new Timeout());
        });
        aborted.catch(() => undefined);
      }
      return aborted;
    },
    get signal(): AbortSignal {
      controller ??= new AbortController();
      if (expired) controller.abort();
      return controller.signal;
    },
    get expired() {
      return expired;
    },
    /** Runs `fn` when the deadline passes (at once if it has); one callback, the last one set. */
    whenExpired(fn: (() => void) | undefined) {
      onExpire = fn;
      if (expired) fn?.();
    },
    left: () => Math.max(0, end - Date.now()),
    clear: disarm,
  };
}

class Timeout extends Error {}

/** `fn`, called the first time only (a request resent on a new connection is written twice). */
function once(fn: () => void): () => void {
  let called = false;
  return () => {
    if (!called) fn();
    called = true;
  };
}

/** Lower-case names; repeated headers joined with `, ` (raw: name, value, name, value…). */
function flatHeaders(raw: readonly (Buffer | string | (Buffer | string)[])[] | null): Record<string, string> {
  const out: Record<string, string> = {};
  if (!raw) return out;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = String(raw[i]).toLowerCase();
    const value = raw[i + 1]!;
    const text = Array.isArray(value) ? value.map(String).join(', ') : String(value);
    out[name] = name in out ? `${out[name]}, ${text}` : text;
  }
  return out;
}

/** The origin a checked destination is connected to: its address, never the name. */
function originOf(dest: Destination): string {
  const host = dest.address.includes(':') ? `[${dest.address}]` : dest.address;
  return `${dest.url.protocol}//${host}${dest.url.port ? `:${dest.url.port}` : ''}`;
}

/** What a connection dropped by the other side says (undici's own error, or the socket's). */
const DROPPED = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);
function networkCode(err: NodeJS.ErrnoException): string {
  const cause = (err as { cause?: NodeJS.ErrnoException }).cause;
  return cause?.code ?? err.code ?? err.message;
}

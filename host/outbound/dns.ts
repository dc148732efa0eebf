import dns from 'node:dns';

/** Every address a name has now. */
export type Resolved = readonly { address: string; family: number }[];

/**
 * Resolves a host name for the outbound client. `signal` aborts at the request's deadline,
 * `timeoutMs` is the time left until then: a resolver gives up by then and frees what it holds.
 */
export type Resolver = (hostname: string, deadline: { readonly signal: AbortSignal; readonly timeoutMs: number }) => Promise<Resolved>;

/** Thrown when the lookups in flight are at their cap: the request is refused at once, never queued. */
export class LookupsBusy extends Error {}

/**
 * A cap on lookups that are actually running. A slot is held until the lookup itself
 * ends, not until its request gave up: an uncancellable `dns.lookup` that outlives its
 * deadline still counts, so a name server that never answers can hold the slots, never more.
 */
function createLookupGate(max: number) {
  let running = 0;
  return {
    /** Takes a slot, or throws LookupsBusy; the returned release may be called more than once. */
    take(what: string): () => void {
      if (running >= max) throw new LookupsBusy(`${max} name lookups are already in flight (${what} not attempted)`);
      running++;
      let held = true;
      return () => {
        if (held) running--;
        held = false;
      };
    },
  };
}

/**
 * Process-wide, like what they protect. c-ares lookups are cancelled at the deadline, so
 * their slots come back then. `dns.lookup` runs getaddrinfo on libuv's thread pool and
 * cannot be cancelled; libuv lets at most half the pool (2 of the default 4 threads) run
 * such slow work at once, and every other name lookup of the process (MinIO, MongoDB,
 * EventStoreDB reconnects) queues behind it. Measured: two getaddrinfo calls waiting on a
 * silent name server stall `lookup('localhost')` until they give up (~30 s). So the
 * outbound client may hold one fewer than that half, and always at least one.
 */
const resolverGate = createLookupGate(4);
const poolThreads = Number(process.env.UV_THREADPOOL_SIZE) || 4;
const systemLookupGate = createLookupGate(Math.max(1, Math.floor((poolThreads + 1) / 2) - 1));

/** RFC 6761 §6.3: `localhost` and names under it are loopback by definition, whatever a name server says. */
const LOCALHOST = /(?:^|\.)localhost\.?$/i;
const LOOPBACK: Resolved = [
  { address: '127.0.0.1', family: 4 },
  { address: '::1', family: 6 },
];

/** How long past the deadline c-ares may wait before it gives up by itself (the deadline cancels it first). */
const BACKSTOP_MS = 1_000;

/** Answers that mean "no such address" rather than "the name server failed". */
const NO_DATA = new Set<string>([dns.NODATA, dns.NOTFOUND]);

/**
 * Resolves A and AAAA records with c-ares (`dns.promises.Resolver`), which queries the name
 * servers itself on the event loop (not libuv's thread pool), sends each query once, and is
 * cancelled at the deadline. It reads /etc/resolv.conf but not /etc/hosts, so a name that
 * only the hosts file knows does not resolve (`privateResolver` falls back to the system's
 * lookup for those). `servers` replaces the name servers (tests).
 */
export function publicResolver(opts: { readonly servers?: readonly string[] } = {}): Resolver {
  return async (hostname, { signal, timeoutMs }) => {
    if (LOCALHOST.test(hostname)) return LOOPBACK;
    if (signal.aborted) throw signal.reason;
    const release = resolverGate.take(hostname);
    // One channel per lookup: cancel() ends every query of its channel, and only this one's may end.
    // c-ares' own timeout is only a backstop, a little past the deadline: the deadline cancels
    // first and says 'timeout', where a tie on a busy event loop read as a failed name server.
    const resolver = new dns.promises.Resolver({ timeout: Math.max(1, Math.ceil(timeoutMs)) + BACKSTOP_MS, tries: 1 });
    // c-ares ends the queries within cancel() (their promises reject a moment later): the slot is free at once.
    const cancel = () => {
      resolver.cancel();
      release();
    };
    signal.addEventListener('abort', cancel, { once: true });
    try {
      if (opts.servers) resolver.setServers([...opts.servers]);
      const [v4, v6] = await Promise.allSettled([resolver.resolve4(hostname), resolver.resolve6(hostname)]);
      // The connection goes to one checked address only, so an answer for one family is enough.
      const addresses = [
        ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 })) : []),
        ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 })) : []),
      ];
      if (addresses.length > 0) return addresses;
      const failures = [v4, v6].flatMap((r) => (r.status === 'rejected' ? [r.reason as NodeJS.ErrnoException] : []));
      // A failed name server says more than the other family's "no data".
      throw failures.find((e) => !NO_DATA.has(e.code ?? '')) ?? failures[0] ?? Object.assign(new Error(`${hostname} has no address`), { code: dns.NODATA });
    } finally {
      signal.removeEventListener('abort', cancel);
      release();
    }
  };
}

/**
 * For the private-network switch, whose receivers are often named only in /etc/hosts or by
 * mDNS: the name servers first (as `publicResolver`), and for a name they do not know, what
 * the operating system answers (`dns.lookup`). That lookup cannot be cancelled: the client
 * stops waiting at the deadline while the lookup keeps its slot, so with the default pool
 * one such lookup runs at a time and the others are refused.
 */
export function privateResolver(opts: { readonly servers?: readonly string[] } = {}): Resolver {
  const servers = publicResolver(opts);
  return async (hostname, deadline) => {
    try {
      return await servers(hostname, deadline);
    } catch (err) {
      if (!NO_DATA.has((err as NodeJS.ErrnoException).code ?? '')) throw err;
    }
    if (deadline.signal.aborted) throw deadline.signal.reason;
    const release = systemLookupGate.take(hostname);
    return dns.promises.lookup(hostname, { all: true, verbatim: true }).finally(release);
  };
}

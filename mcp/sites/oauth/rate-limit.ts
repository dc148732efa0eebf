import { isIP } from 'node:net';
import { ipToBigInt } from '../../../api/ip.ts';

export type Admission = { readonly ok: true; readonly release: () => void } | { readonly ok: false; readonly retryAfterSeconds: number };

/**
 * A sliding-window limit per peer: at most `max` admissions in any `windowMs`. Memory is
 * bounded twice over: a peer keeps at most `max` timestamps, and at most `maxPeers` peers
 * are tracked. Peers are kept in order of their latest admission, so the ones whose window
 * is over sit at the front and are dropped as soon as anyone is admitted; when more than
 * `maxPeers` are active at once, the least recently admitted is forgotten (someone who
 * holds that many addresses is not slowed by a per-address limit anyway).
 * Per process: behind a load balancer each instance counts on its own.
 */
export function createRateLimiter(opts: { max: number; windowMs: number; maxPeers: number; now: () => number }) {
  const { max, windowMs, maxPeers } = opts;
  /** Admission times per peer, oldest first; map order = least recently admitted first. */
  const peers = new Map<string, number[]>();

  const live = (peer: string, now: number): number[] => {
    const times = peers.get(peer);
    if (!times) return [];
    while (times.length > 0 && times[0]! <= now - windowMs) times.shift();
    if (times.length === 0) peers.delete(peer);
    return times;
  };

  /** Drops peers whose latest admission left the window (they are at the front), then the overflow. */
  const prune = (now: number): void => {
    for (const [peer, times] of peers) {
      if (times[times.length - 1]! > now - windowMs) break;
      peers.delete(peer);
    }
    while (peers.size > maxPeers) peers.delete(peers.keys().next().value!);
  };

  return {
    /**
     * Admits one request of `peer` now, or says when to retry. An admission counts at once
     * (concurrent requests cannot all slip under the limit); `release()` gives it back when
     * the request turned out not to register anything.
     */
    admit(peer: string): Admission {
      const now = opts.now();
      prune(now);
      const times = live(peer, now);
      if (times.length >= max) {
        return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((times[0]! + windowMs - now) / 1000)) };
      }
      peers.delete(peer);
      peers.set(peer, [...times, now]);
      prune(now);
      let released = false;
      return {
        ok: true,
        release: () => {
          if (released) return;
          released = true;
          const held = peers.get(peer);
          const i = held?.lastIndexOf(now) ?? -1;
          if (held && i !== -1) held.splice(i, 1);
          if (held?.length === 0) peers.delete(peer);
        },
      };
    },
    /** Peers currently tracked (for tests and metrics). */
    get size(): number {
      return peers.size;
    },
  };
}
export type RateLimiter = ReturnType<typeof createRateLimiter>;

/**
 * The key a peer address is counted under: IPv4 (also when IPv4-mapped) as is, IPv6 by
 * its /64, the smallest network a single host is usually handed.
 */
export function limiterKey(address: string): string {
  let addr = address;
  if (addr.startsWith('::ffff:') && isIP(addr.slice(7)) === 4) addr = addr.slice(7);
  const family = isIP(addr);
  if (family === 4) return addr;
  if (family === 6) return `${(ipToBigInt(addr.split('%')[0]!, 6) >> 64n).toString(16)}::/64`;
  return addr;
}

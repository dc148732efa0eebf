import type { Server } from 'node:http';
import { isIP, type Socket } from 'node:net';
import { ipToBigInt } from '../api/ip.ts';
import { closeWith } from './slow-client.ts';

/** At most one log line per address this often while it keeps hitting the cap. */
const LOG_EVERY_MS = 60_000;

export type PeerCap = {
  readonly max: number;
  /** Peers never capped: the trusted proxies, whose one address carries everyone's connections. */
  readonly exempt: (address: string) => boolean;
  /** Called when an address hits the cap (at most once a minute per address), with how many were refused since. */
  readonly onRefused: (address: string, refused: number) => void;
};

/**
 * The client an address stands for: an IPv4 address, or the /64 of an IPv6 one (a single
 * host is usually handed a whole /64, so counting single IPv6 addresses would count nothing).
 */
export function peerKey(address: string | undefined): string | undefined {
  if (!address) return undefined;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  if (isIP(v4) === 4) return v4;
  if (isIP(address) !== 6) return undefined;
  const prefix = (ipToBigInt(address, 6) >> 64n).toString(16).padStart(16, '0');
  return `${prefix.match(/.{4}/g)!.map((h) => h.replace(/^0+(?=.)/, '')).join(':')}::/64`;
}

/**
 * Caps the connections open at once per client address. Installed in front of every other
 * `connection` listener (Node's HTTP parser included), so a connection over the cap never
 * reaches the parser: it is answered 429 and closed at once.
 */
export function capConnectionsPerPeer(server: Server, cap: PeerCap): void {
  if (cap.max <= 0) return;
  const open = new Map<string, { count: number; refused: number; loggedAt: number }>();
  const listeners = server.listeners('connection') as ((socket: Socket) => void)[];
  server.removeAllListeners('connection');
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress;
    const key = address && !cap.exempt(address) ? peerKey(address) : undefined;
    if (key !== undefined) {
      const peer = open.get(key) ?? { count: 0, refused: 0, loggedAt: 0 };
      if (peer.count >= cap.max) {
        peer.refused++;
        if (Date.now() - peer.loggedAt >= LOG_EVERY_MS) {
          cap.onRefused(key, peer.refused);
          peer.loggedAt = Date.now();
          peer.refused = 0;
        }
        socket.on('error', () => undefined);
        // Read (and drop) what the client sends, so closing does not reset the connection before it reads the 429.
        socket.resume();
        closeWith(socket, 429, { error: `too many open connections from this address (at most ${cap.max}); close some and retry`, code: 'too_many_requests' }, { 'Retry-After': '5' });
        return;
      }
      peer.count++;
      open.set(key, peer);
      socket.once('close', () => {
        if (--peer.count === 0) open.delete(key);
      });
    }
    for (const listener of listeners) listener.call(server, socket);
  });
}

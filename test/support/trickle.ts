import { connect, type Socket } from 'node:net';

/** The longest any connection is watched; the before-figures came from here. */
const GIVE_UP_MS = 75_000;

export type Trickle = { closedAfterMs: Promise<number>; answer: () => string; stop: () => void };

/**
 * Opens a connection (from `localAddress`), writes `head`, then one byte of `drip` every
 * `everyMs` until the server destroys the connection (or GIVE_UP_MS pass); resolves with
 * the time that took.
 */
export function trickle(port: number, head: string, drip: string, everyMs: number, localAddress = '127.0.0.1'): Trickle {
  const t0 = Date.now();
  let received = '';
  let socket!: Socket;
  let timer: NodeJS.Timeout | undefined;
  const closedAfterMs = new Promise<number>((resolve) => {
    // allowHalfOpen: like a hostile client, it does not close its side when the server ends
    // the connection (an answer followed by FIN is not a cut; only a destroyed socket is).
    socket = connect({ port, host: '127.0.0.1', localAddress, allowHalfOpen: true }, () => socket.write(head));
    let i = 0;
    timer = setInterval(() => {
      if (Date.now() - t0 > GIVE_UP_MS) socket.destroy();
      else if (!socket.destroyed) socket.write(drip[i++ % drip.length]!);
    }, everyMs);
    socket.on('data', (c: Buffer) => (received += c.toString('latin1')));
    // The server answered and ended its side: from now on probe often, so the moment it
    // destroys the connection (a write is then refused) is measured within 100 ms.
    socket.on('end', () => {
      clearInterval(timer);
      timer = setInterval(() => (Date.now() - t0 > GIVE_UP_MS ? socket.destroy() : socket.write(drip[0]!)), 100);
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(timer);
      resolve(Date.now() - t0);
    });
  });
  return { closedAfterMs, answer: () => received, stop: () => socket.destroy() };
}


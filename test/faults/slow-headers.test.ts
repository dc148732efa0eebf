/**
 * Slow clients that never authenticate: headers trickled a byte at a time, and a body
 * trickled into a request that is refused before anyone reads it. Each must be cut off by
 * the service's own clock (headers within 10 s, spec §2), while other clients are served.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../support/service.ts';

let svc: RunningService;

beforeAll(async () => {
  // The body guard's window is twice the upload window: 2 × 2 s here.
  svc = await startService({ env: { SITES_UPLOAD_STALL_WINDOW_MS: '2000', SITES_UPLOAD_MIN_BYTES_PER_S: '10240' } });
});
afterAll(() => svc?.stop());

type Trickle = { closedAfterMs: Promise<number>; answer: () => string };

/** Opens a connection, writes `head`, then one byte of `drip` every `everyMs` until the server closes it (or 40 s pass). */
function trickle(head: string, drip: string, everyMs: number): Trickle {
  const t0 = Date.now();
  let received = '';
  let socket: Socket;
  const closedAfterMs = new Promise<number>((resolve) => {
    socket = connect(svc.port, '127.0.0.1', () => socket.write(head));
    let i = 0;
    const timer = setInterval(() => {
      if (Date.now() - t0 > 40_000) socket.destroy();
      else if (!socket.destroyed) socket.write(drip[i++ % drip.length]!);
    }, everyMs);
    socket.on('data', (c: Buffer) => (received += c.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(timer);
      resolve(Date.now() - t0);
    });
  });
  return { closedAfterMs, answer: () => received };
}

describe('slow clients are cut off whether or not they authenticate', () => {
  it('closes 20 connections trickling their headers within about 10 s, while others are served', async () => {
    const trickles = Array.from({ length: 20 }, () => trickle(`GET /api/sites HTTP/1.1\r\nHost: localhost:${svc.port}\r\nX-`, 'aaaaaaaa', 5_000));
    await new Promise((r) => setTimeout(r, 1_000));
    const t0 = Date.now();
    expect((await fetch(new URL('/healthz', svc.url))).status).toBe(200);
    expect(Date.now() - t0).toBeLessThan(1_000);
    const closed = await Promise.all(trickles.map((t) => t.closedAfterMs));
    for (const ms of closed) expect(ms).toBeLessThan(12_500);
    expect(trickles[0]!.answer()).toMatch(/^HTTP\/1\.1 408/);
  });

  it('closes a connection trickling a body into an unauthenticated request', async () => {
    const head = `POST /api/keys HTTP/1.1\r\nHost: localhost:${svc.port}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{`;
    const t = trickle(head, ' ', 1_000);
    const ms = await t.closedAfterMs;
    // Answered 401 at once (nothing authenticates it), then cut within two 4 s windows.
    expect(t.answer()).toMatch(/^HTTP\/1\.1 401/);
    expect(ms).toBeLessThan(9_000);
  });

  it('closes a connection trickling a JSON body that a route is reading', async () => {
    const head = `POST /mcp/oauth/register HTTP/1.1\r\nHost: localhost:${svc.port}\r\nContent-Type: application/json\r\nContent-Length: 3000\r\n\r\n{`;
    const t = trickle(head, ' ', 1_000);
    const ms = await t.closedAfterMs;
    expect(ms).toBeLessThan(9_000);
  });
});

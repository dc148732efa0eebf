/**
 * Slow clients that never authenticate: headers trickled a byte at a time, and a body
 * trickled into a request that is refused before anyone reads it. Each must be cut off by
 * the service's own clock (headers within 10 s, spec §2), while other clients are served.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../support/service.ts';
import { trickle as trickleTo } from '../support/trickle.ts';

let svc: RunningService;

beforeAll(async () => {
  // The backstop body guard's window is the upload window and 1 s: 3 s here.
  svc = await startService({ env: { SITES_UPLOAD_STALL_WINDOW_MS: '2000', SITES_UPLOAD_MIN_BYTES_PER_S: '10240' } });
});
afterAll(() => svc?.stop());

/** A trickle against this service: a hostile client that keeps its side open after our answer. */
const trickle = (head: string, drip: string, everyMs: number) => trickleTo(svc.port, head, drip, everyMs);

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
    // Answered 401 at once (nothing authenticates it), then cut within the first 3 s window.
    expect(t.answer()).toMatch(/^HTTP\/1\.1 401/);
    expect(ms).toBeLessThan(4_500);
  });

  it('closes a connection trickling a JSON body that a route is reading', async () => {
    const head = `POST /mcp/oauth/register HTTP/1.1\r\nHost: localhost:${svc.port}\r\nContent-Type: application/json\r\nContent-Length: 3000\r\n\r\n{`;
    const t = trickle(head, ' ', 1_000);
    const ms = await t.closedAfterMs;
    expect(t.answer()).toMatch(/^HTTP\/1\.1 408/);
    expect(ms).toBeLessThan(4_500);
  });
});

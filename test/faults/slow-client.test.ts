import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publish, tarGz } from '../support/publish.ts';
import { startService, type RunningService } from '../support/service.ts';

let svc: RunningService;
let key: string;

beforeAll(async () => {
  // 2 s windows instead of 30 s, same 10 KiB/s floor: the trickle below sends 1 KiB/s.
  svc = await startService({ env: { SITES_UPLOAD_STALL_WINDOW_MS: '2000', SITES_UPLOAD_MIN_BYTES_PER_S: '10240' } });
  key = await svc.createKey(['--name', 'admin', '--admin']);
});
afterAll(() => svc?.stop());

/** Sends a multipart publish whose bundle trickles at 1 KiB/s; resolves with the status the server answers. */
function trickle(archive: Buffer): Promise<{ status: number; body: string; ms: number; sent: number }> {
  const boundary = 'trickle';
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="meta"\r\n\r\n${JSON.stringify({ group: '', slug: 'slow', title: 'Slow' })}\r\n--${boundary}\r\nContent-Disposition: form-data; name="bundle"; filename="b.tgz"\r\nContent-Type: application/octet-stream\r\n\r\n`;
  const t0 = Date.now();
  let sent = 0;
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: svc.port, method: 'POST', path: '/ingest/sites', headers: { Host: `localhost:${svc.port}`, Authorization: `Bearer ${key}`, 'Content-Type': `multipart/form-data; boundary=${boundary}`, 'Content-Length': head.length + archive.length + 40 } },
      (res) => {
        clearInterval(timer);
        let body = '';
        res.on('data', (c: Buffer) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, ms: Date.now() - t0, sent }));
      },
    );
    req.on('error', (err) => (sent > 0 ? resolve({ status: -1, body: String(err), ms: Date.now() - t0, sent }) : reject(err)));
    req.write(head);
    // A real archive, so the reader keeps waiting for more of it rather than failing.
    const timer = setInterval(() => {
      req.write(archive.subarray(sent, sent + 1024));
      sent += 1024;
      if (Date.now() - t0 > 30_000) {
        clearInterval(timer);
        req.destroy();
      }
    }, 1000);
  });
}

describe('slow client', () => {
  it('times out an upload trickling at 1 KiB/s with 408 while others publish and read', async () => {
    expect((await publish(svc.url, key, { group: '', slug: 'fast', title: 'Fast' }, { index: '<p>v1</p>' })).status).toBe(200);
    const slow = trickle(await tarGz({ 'index.html': '<p>slow</p>', 'noise.bin': randomBytes(1024 * 1024) }));
    // While the trickle holds its connection, other clients publish and read normally.
    await new Promise((r) => setTimeout(r, 500));
    const t0 = Date.now();
    const other = await publish(svc.url, key, { group: '', slug: 'fast', title: 'Fast' }, { files: { 'index.html': '<p>v2</p>' } });
    expect(other.status).toBe(200);
    expect(await (await fetch(svc.siteUrl('fast'))).text()).toBe('<p>v2</p>');
    expect(Date.now() - t0).toBeLessThan(2000);
    const result = await slow;
    expect(result.status).toBe(408);
    expect(JSON.parse(result.body).error).toMatch(/too slow/);
    // Cut after the first window or the second at the latest, not after the 10-minute request timeout.
    expect(result.ms).toBeLessThan(6000);
    // Nothing of the aborted publish exists.
    expect((await fetch(svc.siteUrl('slow'))).status).toBe(404);
  });

  it('lets a normal upload through with the same settings', async () => {
    const big = Buffer.alloc(3 * 1024 * 1024, 0x62);
    const res = await publish(svc.url, key, { group: '', slug: 'normal', title: 'Normal' }, { files: { 'index.html': '<p>ok</p>', 'big.bin': big } });
    expect(res.status).toBe(200);
  });
});

/**
 * `GET /api/sites` answers in gzip (or brotli) when the client accepts it, with a strong
 * ETag per answer and encoding, and 304 to an `If-None-Match` that names the current one.
 * The mistake this guards against: a 304 after a write (a stale listing kept by the
 * browser), or one ETag for two encodings (a cache handing gzip bytes to a client that
 * asked for none).
 */
import { request } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publish } from '../support/publish.ts';
import { startService, type RunningService } from '../support/service.ts';

let svc: RunningService;
let dataDir: string;
let admin: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'sites-listing-encoding-'));
  svc = await startService({ dataDir });
  admin = await svc.createKey(['--name', 'admin', '--admin']);
  for (const slug of ['one', 'two', 'three']) expect((await publish(svc.url, admin, { group: 'enc', slug, title: slug }, { index: `<p>${slug}</p>` })).status).toBe(200);
}, 60_000);
afterAll(async () => {
  await svc?.halt();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

type Raw = { status: number; headers: Record<string, string | string[] | undefined>; body: Buffer };

/** A GET with exactly these headers (fetch would add Accept-Encoding and decode on its own); an empty `Authorization` is left out. */
function get(path: string, headers: Record<string, string>): Promise<Raw> {
  const url = new URL(path, svc.url);
  const all: Record<string, string> = { Host: url.host, Authorization: `Bearer ${admin}`, ...headers };
  if (!all.Authorization) delete all.Authorization;
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path: url.pathname + url.search, headers: all }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

const json = (r: Raw): any => {
  const coding = r.headers['content-encoding'];
  const bytes = coding === 'gzip' ? gunzipSync(r.body) : coding === 'br' ? brotliDecompressSync(r.body) : r.body;
  return JSON.parse(bytes.toString('utf8'));
};

describe('GET /api/sites: compression and conditional requests', () => {
  it('answers the same listing in gzip, brotli and plain, each with its own ETag, and Vary: Accept-Encoding', async () => {
    for (const query of ['', '?group=enc&sort=title']) {
      const plain = await get(`/api/sites${query}`, {});
      const gz = await get(`/api/sites${query}`, { 'Accept-Encoding': 'gzip, deflate' });
      const br = await get(`/api/sites${query}`, { 'Accept-Encoding': 'br' });
      for (const r of [plain, gz, br]) {
        expect(r.status).toBe(200);
        expect(String(r.headers.vary)).toMatch(/accept-encoding/i);
        expect(r.headers.etag).toMatch(/^"[^"]+"$/);
      }
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(gz.headers['content-encoding']).toBe('gzip');
      expect(br.headers['content-encoding']).toBe('br');
      expect(new Set([plain.headers.etag, gz.headers.etag, br.headers.etag]).size).toBe(3);
      expect(json(gz)).toEqual(json(plain));
      expect(json(br)).toEqual(json(plain));
      expect(json(plain).count).toBe(3);
    }
  });

  it('answers 304 to the current ETag, and 200 with the change once a site changed', async () => {
    const first = await get('/api/sites', { 'Accept-Encoding': 'gzip' });
    const etag = String(first.headers.etag);
    const again = await get('/api/sites', { 'Accept-Encoding': 'gzip', 'If-None-Match': `W/${etag}, "other"` });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    expect(again.headers.etag).toBe(etag);
    // The plain answer is another representation: the gzip tag does not validate it.
    expect((await get('/api/sites', { 'If-None-Match': etag })).status).toBe(200);

    expect((await publish(svc.url, admin, { group: 'enc', slug: 'four', title: 'four' }, { index: '<p>4</p>' })).status).toBe(200);
    const after = await get('/api/sites', { 'Accept-Encoding': 'gzip', 'If-None-Match': etag });
    expect(after.status).toBe(200);
    expect(after.headers.etag).not.toBe(etag);
    expect(json(after).count).toBe(4);
    // A query's answer has a tag of its own.
    const filtered = await get('/api/sites?group=enc', { 'Accept-Encoding': 'gzip', 'If-None-Match': String(after.headers.etag) });
    expect(filtered.status).toBe(200);
  });
});

describe('GET /api/sites: the ETag names the reader’s own answer', () => {
  it('moves for a viewer only when the viewer’s answer changed, never for a change to a hidden site', async () => {
    const asViewer = (etag?: string) => get('/api/sites', { 'Accept-Encoding': 'gzip', Authorization: '', 'Remote-User': 'viewer', ...(etag ? { 'If-None-Match': etag } : {}) });
    expect((await publish(svc.url, admin, { group: 'enc', slug: 'unseen', title: 'Unseen', hidden: true }, { index: '<p>x</p>' })).status).toBe(200);
    const first = await asViewer();
    expect(first.status).toBe(200);
    expect(JSON.stringify(json(first))).not.toContain('Unseen');
    const etag = String(first.headers.etag);

    // The hidden site changes: the admin's answer moves, the viewer's bytes and tag do not.
    const adminBefore = String((await get('/api/sites?hidden=true', { 'Accept-Encoding': 'gzip' })).headers.etag);
    expect((await publish(svc.url, admin, { group: 'enc', slug: 'unseen', title: 'Unseen again', hidden: true }, { index: '<p>y</p>' })).status).toBe(200);
    expect(String((await get('/api/sites?hidden=true', { 'Accept-Encoding': 'gzip' })).headers.etag)).not.toBe(adminBefore);
    const again = await asViewer(etag);
    expect(again.status).toBe(304);
    expect(again.headers.etag).toBe(etag);

    // A site the viewer sees changes: a new tag and the new bytes.
    expect((await publish(svc.url, admin, { group: 'enc', slug: 'seen', title: 'Seen' }, { index: '<p>z</p>' })).status).toBe(200);
    const after = await asViewer(etag);
    expect(after.status).toBe(200);
    expect(after.headers.etag).not.toBe(etag);
    expect(JSON.stringify(json(after))).toContain('Seen');
  });
});

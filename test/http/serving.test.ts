import { request } from 'node:http';
import { gunzipSync, brotliDecompressSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publish } from '../support/publish.ts';
import { startService, type RunningService } from '../support/service.ts';

let svc: RunningService;

/** A raw request with an exact Host header and no automatic decompression. */
function get(host: string, path: string, headers: Record<string, string> = {}, method = 'GET') {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: svc.port, path, method, headers: { host, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

const css = 'body { margin: 0 }\n'.repeat(200);
const big = Buffer.from('x'.repeat(300_000));

beforeAll(async () => {
  svc = await startService({ env: { SITES_ALIAS_DOMAINS: 'alias.localhost' } });
  const key = await svc.createKey(['--name', 'admin', '--admin']);
  await publish(svc.url, key, { group: 'docs', slug: 'app', title: 'App' }, {
    files: {
      'index.html': '<h1>home</h1>',
      'guide/index.html': '<h1>guide</h1>',
      'pricing.html': '<h1>pricing</h1>',
      '404.html': '<h1>custom 404</h1>',
      'style.css': css,
      'data.bin': Buffer.from(Array.from({ length: 256 }, (_, i) => i)),
      'big.js': big,
    },
  });
  await publish(svc.url, key, { group: '', slug: 'plain', title: 'Plain' }, { index: '<p>plain</p>' });
});
afterAll(() => svc?.stop());

const host = () => `app.docs.localhost:${svc.port}`;

describe('serving a site by Host', () => {
  it('serves index files, directory redirects, pretty URLs and the site 404 page', async () => {
    expect((await get(host(), '/')).body.toString()).toBe('<h1>home</h1>');
    expect((await get(host(), '/guide/')).body.toString()).toBe('<h1>guide</h1>');
    const redirect = await get(host(), '/guide?x=1');
    expect(redirect.status).toBe(301);
    expect(redirect.headers.location).toBe('/guide/?x=1');
    expect((await get(host(), '/pricing')).body.toString()).toBe('<h1>pricing</h1>');
    const missing = await get(host(), '/nope');
    expect(missing.status).toBe(404);
    expect(missing.body.toString()).toBe('<h1>custom 404</h1>');
    const plainMissing = await get(`plain.localhost:${svc.port}`, '/nope');
    expect(plainMissing.status).toBe(404);
    expect((await get(host(), '/../../etc/passwd')).status).toBe(404);
    expect((await get(host(), '/%2e%2e/%2e%2e/etc/passwd')).status).toBe(404);
  });

  it('sets content types, cache headers and a strong ETag; answers 304', async () => {
    const html = await get(host(), '/');
    expect(html.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(html.headers['cache-control']).toBe('no-cache');
    const cssRes = await get(host(), '/style.css');
    expect(cssRes.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(cssRes.headers['cache-control']).toBe('public, max-age=300');
    const etag = cssRes.headers.etag as string;
    expect(etag).toMatch(/^"[0-9a-f]{64}"$/);
    const again = await get(host(), '/style.css', { 'If-None-Match': etag });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
  });

  it('honours single ranges and HEAD', async () => {
    const part = await get(host(), '/data.bin', { Range: 'bytes=10-19' });
    expect(part.status).toBe(206);
    expect(part.headers['content-range']).toBe('bytes 10-19/256');
    expect([...part.body]).toEqual([10, 11, 12, 13, 14, 15, 16, 17, 18, 19]);
    const suffix = await get(host(), '/data.bin', { Range: 'bytes=-2' });
    expect([...suffix.body]).toEqual([254, 255]);
    expect((await get(host(), '/data.bin', { Range: 'bytes=999-' })).status).toBe(416);
    const head = await get(host(), '/data.bin', {}, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe('256');
    expect(head.body.length).toBe(0);
  });

  it('compresses compressible types for clients that accept it', async () => {
    const gz = await get(host(), '/style.css', { 'Accept-Encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.body).toString()).toBe(css);
    const br = await get(host(), '/style.css', { 'Accept-Encoding': 'br, gzip' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.body).toString()).toBe(css);
    const large = await get(host(), '/big.js', { 'Accept-Encoding': 'gzip' });
    expect(gunzipSync(large.body).equals(big)).toBe(true);
    const brOnly = await get(host(), '/big.js', { 'Accept-Encoding': 'br' });
    expect(brOnly.headers['content-encoding']).toBeUndefined();
    expect(brOnly.body.equals(big)).toBe(true);
    const identity = await get(host(), '/data.bin', { 'Accept-Encoding': 'gzip' });
    expect(identity.headers['content-encoding']).toBeUndefined();
  });

  it('plays Host-header games safely', async () => {
    expect((await get(`APP.Docs.LOCALHOST:${svc.port}`, '/')).body.toString()).toBe('<h1>home</h1>');
    expect((await get(`app.docs.localhost.:${svc.port}`, '/')).body.toString()).toBe('<h1>home</h1>');
    expect((await get(`app.docs.alias.localhost:${svc.port}`, '/')).body.toString()).toBe('<h1>home</h1>');
    expect((await get(`alias.localhost:${svc.port}`, '/healthz')).status).toBe(200); // an alias apex is an apex
    expect((await get(`a.b.c.d.localhost:${svc.port}`, '/')).status).toBe(404);
    expect((await get(`xn--bcher-kva.localhost:${svc.port}`, '/')).status).toBe(404);
    expect((await get(`unknown.example:${svc.port}`, '/')).status).toBe(404);
    expect((await get(`app.docs.localhost:${svc.port}`, '/api/sites')).status).toBe(404); // sites never serve the API
    expect((await get(`app.docs.localhost:${svc.port}`, '/ingest/sites')).status).toBe(404);
  });
});

/**
 * The site server answers a file the first time by building it (headers set one by one,
 * body read and compressed), and from then on from memory with a header list prepared
 * for the revision. Both must be the same answer: status, every header in the same order
 * with the same value (Date aside), and the same bytes, for each content coding and for
 * HEAD, with the site's `_headers` replacing the service's own.
 */
import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publish } from '../support/publish.ts';
import { startService, type RunningService } from '../support/service.ts';

let svc: RunningService;

const page = `<!doctype html><title>t</title>${'<p>some text that compresses</p>'.repeat(40)}`;
const files = {
  'index.html': page,
  'tiny.html': '<p>under 256 bytes: never compressed</p>',
  'assets/app.css': `body { color: red; }\n${'.x { margin: 0 }\n'.repeat(50)}`,
  'data.bin': Buffer.alloc(3000, 7),
  '404.html': `<p>custom 404</p>${' '.repeat(400)}`,
  _headers: ['/*', '  X-Frame-Options: DENY', '/assets/*', '  Cache-Control: public, max-age=31536000, immutable', '  Vary: Origin'].join('\n'),
};

type Answer = { status: number; headers: string[]; body: Buffer };

function ask(method: string, path: string, acceptEncoding?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { Host: `answers.localhost:${svc.port}`, ...(acceptEncoding ? { 'Accept-Encoding': acceptEncoding } : {}) };
    const req = request({ host: '127.0.0.1', port: svc.port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const raw = res.rawHeaders.filter((_, i, all) => !/^date$/i.test(all[i - (i % 2)]!));
        resolve({ status: res.statusCode ?? 0, headers: raw, body: Buffer.concat(chunks) });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  svc = await startService();
  const admin = await svc.createKey(['--name', 'admin', '--admin']);
  expect((await publish(svc.url, admin, { group: '', slug: 'answers', title: 'Answers' }, { files })).status).toBe(200);
});
afterAll(() => svc?.stop());

describe('the prepared answer of a file', () => {
  const cases: [string, string | undefined][] = [];
  for (const path of ['/', '/index.html', '/tiny.html', '/assets/app.css', '/data.bin', '/missing', '/index.html?x=1']) {
    for (const coding of [undefined, 'gzip', 'br', 'gzip, br', 'br;q=0, gzip']) cases.push([path, coding]);
  }

  it.each(cases)('%s with Accept-Encoding %s is the same answer the first time and after', async (path, coding) => {
    for (const method of ['GET', 'HEAD']) {
      const answers = [await ask(method, path, coding), await ask(method, path, coding), await ask(method, path, coding)];
      expect(answers[1], method).toEqual(answers[0]);
      expect(answers[2], method).toEqual(answers[0]);
    }
  });

  it('carries the service headers, the site’s in their place, and the bytes of the file', async () => {
    const css = await ask('GET', '/assets/app.css', 'gzip');
    const again = await ask('GET', '/assets/app.css', 'gzip');
    expect(again.headers).toEqual(css.headers);
    const pairs = (a: Answer) => Object.fromEntries(a.headers.flatMap((v, i, all) => (i % 2 ? [] : [[v.toLowerCase(), all[i + 1]]])));
    expect(pairs(again)).toMatchObject({
      'content-type': 'text/css; charset=utf-8',
      'cache-control': 'public, max-age=31536000, immutable',
      'x-content-type-options': 'nosniff',
      vary: 'Origin',
      'x-frame-options': 'DENY',
      'accept-ranges': 'bytes',
      'content-encoding': 'gzip',
      'content-length': String(again.body.length),
    });
    expect(gunzipSync(again.body).toString()).toBe(files['assets/app.css']);
    expect(brotliDecompressSync((await ask('GET', '/', 'br')).body).toString()).toBe(page);
    const missing = await ask('GET', '/missing', 'gzip');
    expect(missing.status).toBe(404);
    expect(gunzipSync(missing.body).toString()).toBe(files['404.html']);
  });
});

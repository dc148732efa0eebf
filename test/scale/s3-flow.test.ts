import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../support/http.ts';
import { publish } from '../support/publish.ts';
import { startS3Server } from '../support/s3-server.ts';
import { startService, type RunningService } from '../support/service.ts';

/** The core publish/serve/list flow once more with files in S3 (a mixed setup: embedded log and read model). */
let s3: Awaited<ReturnType<typeof startS3Server>>;
let svc: RunningService;

beforeAll(async () => {
  s3 = await startS3Server();
  svc = await startService({
    env: { SITES_S3_ENDPOINT: s3.endpoint, SITES_S3_BUCKET: 'sites-e2e', SITES_S3_ACCESS_KEY: s3.accessKey, SITES_S3_SECRET_KEY: s3.secretKey },
  });
});
afterAll(async () => {
  await svc?.stop();
  await s3?.stop();
});

describe('publishing with the S3 file store', () => {
  it('publishes, serves, lists, and still serves after a restart', async () => {
    const key = await svc.createKey(['--name', 'ci', '--admin']);
    const files = { 'index.html': '<h1>in s3</h1>', 'big.bin': Buffer.alloc(300_000, 7), 'a/b.css': 'p{}' };
    const r = await publish(svc.url, key, { group: 'docs', slug: 's3', title: 'S3' }, { files });
    expect(r.status).toBe(200);
    expect(await (await fetch(svc.siteUrl('docs/s3'))).text()).toBe('<h1>in s3</h1>');
    const range = await fetch(`${svc.siteUrl('docs/s3')}big.bin`, { headers: { Range: 'bytes=10-19' } });
    expect(range.status).toBe(206);
    expect(Buffer.from(await range.arrayBuffer())).toEqual(Buffer.alloc(10, 7));
    const list = (await call(svc.url, 'GET', '/api/sites', { key })).body;
    expect(list.count).toBe(1);
    await svc.restart();
    expect(await (await fetch(`${svc.siteUrl('docs/s3')}a/b.css`)).text()).toBe('p{}');
    expect((await call(svc.url, 'GET', '/api/sites', { key })).body).toEqual(list);
  });
});

import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { Client } from 'minio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openS3BlobStore } from '../../host/blobs/s3.ts';
import { startS3Server, type LocalS3 } from '../support/s3-server.ts';

// S3-adapter behaviour beyond the shared contract (blobstore.test.ts), against s3rver.
describe('S3 blob store specifics', () => {
  let s3: LocalS3;
  beforeAll(async () => {
    s3 = await startS3Server();
  });
  afterAll(() => s3?.stop());

  it('creates its bucket, and reopens an existing one with its blobs', async () => {
    const first = await openS3BlobStore(s3);
    expect(s3.requests.filter((r) => r.method === 'PUT' && r.path === `/${s3.bucket}`)).toHaveLength(1);
    const { hash } = await first.putBytes(Buffer.from('kept across opens'));
    await first.close();
    const second = await openS3BlobStore(s3);
    expect(s3.requests.filter((r) => r.method === 'PUT' && r.path === `/${s3.bucket}`)).toHaveLength(1);
    expect((await second.getBytes(hash))?.toString()).toBe('kept across opens');
    await second.close();
  });

  it('uploads a large blob as one streamed PUT of blobs/<hash>, nothing else', async () => {
    const store = await openS3BlobStore(s3);
    const before = s3.requests.length;
    const chunk = Buffer.alloc(1024 * 1024, 'z');
    const result = await store.put(Readable.from((function* () {
      for (let i = 0; i < 8; i++) yield chunk;
    })()));
    const sent = s3.requests.slice(before);
    // one HEAD (exists?) and one PUT whose signed payload hash is the blob's hash (the
    // test server checks it): no multipart upload, so no parts buffered in memory
    expect(sent.filter((r) => r.path.includes('/blobs/'))).toEqual([
      { method: 'HEAD', path: `/${s3.bucket}/blobs/${result.hash}`, query: '' },
      { method: 'PUT', path: `/${s3.bucket}/blobs/${result.hash}`, query: '' },
    ]);
    expect(sent.filter((r) => r.query.includes('upload'))).toEqual([]);
    expect(await store.stat(result.hash)).toEqual({ size: 8 * 1024 * 1024 });
    await store.close();
  });

  it('refuses wrong credentials at open', async () => {
    await expect(openS3BlobStore({ ...s3, secretKey: 'wrong' })).rejects.toThrow();
    await expect(openS3BlobStore({ ...s3, accessKey: 'nobody' })).rejects.toThrow();
  });

  it('the test server itself refuses a body that does not match its signed hash', async () => {
    // Guards the guard: without this check a wrongly hashed streamed PUT would pass here
    // and fail only against real MinIO.
    const client = new Client({ endPoint: '127.0.0.1', port: Number(new URL(s3.endpoint).port), useSSL: false, accessKey: s3.accessKey, secretKey: s3.secretKey });
    const wrongHash = createHash('sha256').update('other bytes').digest('hex');
    const res = client.makeRequestStreamAsync(
      { method: 'PUT', bucketName: s3.bucket, objectName: `blobs/${wrongHash}`, headers: { 'Content-Length': 5 } },
      Buffer.from('bytes'),
      wrongHash,
      [200],
      'us-east-1',
    );
    await expect(res).rejects.toMatchObject({ code: 'XAmzContentSHA256Mismatch' });
    const store = await openS3BlobStore(s3);
    expect(await store.has(wrongHash)).toBe(false);
    await store.close();
  });

  it('rejects an endpoint that is not an http(s) URL without a path', async () => {
    await expect(openS3BlobStore({ ...s3, endpoint: '127.0.0.1:9000' })).rejects.toThrow(/must use http or https|not a URL/);
    await expect(openS3BlobStore({ ...s3, endpoint: 'ftp://127.0.0.1:9000' })).rejects.toThrow(/must use http or https/);
    await expect(openS3BlobStore({ ...s3, endpoint: `${s3.endpoint}/bucket` })).rejects.toThrow(/must not have a path/);
  });
});

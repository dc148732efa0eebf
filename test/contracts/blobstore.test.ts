import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { blobPath, openFolderBlobStore } from '../../host/blobs/folder.ts';
import { openS3BlobStore } from '../../host/blobs/s3.ts';
import { describe } from 'vitest';
import { startFaultProxy } from '../support/s3/fault-proxy.ts';
import { realS3FromEnv } from '../support/s3-endpoint.ts';
import { startS3Server } from '../support/s3-server.ts';
import { blobStoreContract } from './blobstore.contract.ts';

// The one BlobStore contract, run against every adapter. Adapter-specific behaviour:
// blobstore.folder.test.ts and blobstore.s3.test.ts.

blobStoreContract('folder', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'blobs-folder-'));
  return {
    store: openFolderBlobStore(dir),
    async writeMarker(hash) {
      const info = await stat(blobPath(dir, hash), { bigint: true });
      return `${info.ino}:${info.mtimeNs}:${info.ctimeNs}`;
    },
    tempFiles: () => readdir(join(dir, 'tmp')),
    dispose: () => rm(dir, { recursive: true, force: true }),
  };
});

// The MinIO adapter against s3rver, started here on a free loopback port (always runs).
blobStoreContract('s3 (minio client against s3rver)', async () => {
  const s3 = await startS3Server();
  const tmpDir = await mkdtemp(join(tmpdir(), 'blobs-s3-spool-'));
  const store = await openS3BlobStore({ ...s3, tmpDir });
  return {
    store,
    // Every PUT of the object's key the server received (counted by the test server's
    // front proxy): unlike last-modified, this changes even within the same second.
    async writeMarker(hash) {
      const puts = s3.requests.filter((r) => r.method === 'PUT' && r.path === `/${s3.bucket}/blobs/${hash}`).length;
      return `${puts} PUT(s)`;
    },
    tempFiles: () => readdir(tmpDir),
    async dispose() {
      await s3.stop();
      await rm(tmpDir, { recursive: true, force: true });
    },
  };
});

// A real S3 endpoint (MinIO of the compose stack) when SITES_S3_ENDPOINT is set: the same
// contract, in a bucket of its own, through a transparent proxy that counts the PUTs.
const real = realS3FromEnv();
if (real) {
  blobStoreContract(`s3 (minio client against ${process.env.SITES_S3_ENDPOINT})`, async () => {
    const target = await real();
    const proxy = await startFaultProxy(target.endpoint);
    const tmpDir = await mkdtemp(join(tmpdir(), 'blobs-s3-real-spool-'));
    const store = await openS3BlobStore({ ...target, endpoint: proxy.endpoint, tmpDir });
    return {
      store,
      async writeMarker(hash) {
        return `${proxy.requests.filter((r) => r.method === 'PUT' && r.path === `/${target.bucket}/blobs/${hash}`).length} PUT(s)`;
      },
      tempFiles: () => readdir(tmpDir),
      async dispose() {
        await proxy.stop();
        await target.stop();
        await rm(tmpDir, { recursive: true, force: true });
      },
    };
  });
} else {
  console.log('skipped: no SITES_S3_ENDPOINT (the S3 contract ran against s3rver only)');
  describe.skip('BlobStore contract: a real S3 endpoint (skipped: no SITES_S3_ENDPOINT)', () => {});
}

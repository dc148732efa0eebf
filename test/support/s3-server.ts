import { createReadStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import { startSigV4Proxy, type SeenRequest } from './s3/sigv4-proxy.ts';

export type { SeenRequest as S3Request } from './s3/sigv4-proxy.ts';

/** s3rver's built-in account. */
const ACCESS_KEY = 'S3RVER';
const SECRET_KEY = 'S3RVER';

export type LocalS3 = {
  /** `http://127.0.0.1:<port>`, the shape `SITES_S3_ENDPOINT` takes. */
  readonly endpoint: string;
  readonly accessKey: string;
  readonly secretKey: string;
  /** A bucket name unique to this server; the adapter creates it. */
  readonly bucket: string;
  /** Every request received so far, in order: lets tests prove what was (not) sent. */
  readonly requests: readonly SeenRequest[];
  stop(): Promise<void>;
};

/**
 * Starts s3rver (an S3-compatible server in Node) on a free loopback port with its own
 * temp directory, for the MinIO adapter's contract suite and the S3 end-to-end run.
 * Clients talk to a checking proxy in front of it (`s3/sigv4-proxy.ts`) that verifies
 * signature v4 and payload hashes, which s3rver itself skips. Credentials: S3RVER/S3RVER.
 */
export async function startS3Server(): Promise<LocalS3> {
  const directory = await mkdtemp(join(tmpdir(), 's3rver-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    directory,
    silent: true,
    // Path-style only: vhost detection would treat a `*.localhost` Host as a bucket.
    vhostBuckets: false,
  });
  fixZeroEndRange(server);
  const address = (await server.run()) as AddressInfo;
  const proxy = await startSigV4Proxy(address.port, ACCESS_KEY, SECRET_KEY);
  return {
    endpoint: `http://127.0.0.1:${proxy.port}`,
    accessKey: ACCESS_KEY,
    secretKey: SECRET_KEY,
    bucket: `sites-test-${process.pid}-${Date.now().toString(36)}`,
    requests: proxy.requests,
    async stop() {
      proxy.server.closeAllConnections();
      await new Promise((resolve) => proxy.server.close(resolve));
      server.httpServer.closeAllConnections();
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

type StoredObject = { content: Readable | null; range?: { start: number; end: number } };
type FilesystemStore = {
  getObject(bucket: string, key: string, options?: { start?: number; end?: number }): Promise<StoredObject | null>;
  getResourcePath(bucket: string, key: string, resource: 'object'): string;
};

/**
 * s3rver 3.7 bug workaround (test server only; MinIO and S3 are correct): its store
 * computes a range end as `options.end || Infinity`, so `Range: bytes=0-0` (the first
 * byte alone) returns the whole object. Re-open exactly byte 0 in that one case.
 */
function fixZeroEndRange(server: S3rver): void {
  const store = (server as unknown as { store: FilesystemStore }).store;
  const getObject = store.getObject.bind(store);
  store.getObject = async (bucket, key, options) => {
    const object = await getObject(bucket, key, options);
    if (object?.content && object.range && options?.start === 0 && options.end === 0) {
      object.content.destroy();
      object.content = createReadStream(store.getResourcePath(bucket, key, 'object'), { start: 0, end: 0 });
      object.range = { start: 0, end: 0 };
    }
    return object;
  };
}

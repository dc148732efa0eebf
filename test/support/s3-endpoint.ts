import { Client } from 'minio';
import { startS3Server } from './s3-server.ts';

/** An S3 endpoint for a test: where to connect, a bucket of its own, and how to clean up. */
export type S3Target = {
  readonly name: string;
  readonly endpoint: string;
  readonly accessKey: string;
  readonly secretKey: string;
  /** A bucket no one else uses; the adapter creates it. */
  readonly bucket: string;
  stop(): Promise<void>;
};

/**
 * The real S3 endpoint the contract suites run against when `SITES_S3_ENDPOINT` is set
 * (MinIO of the compose stack, say), with `SITES_S3_ACCESS_KEY` / `SITES_S3_SECRET_KEY`;
 * undefined otherwise. Each call gets a fresh bucket, emptied and removed by `stop()`, so the
 * suites never touch the service's own bucket (the key must be allowed to create buckets).
 */
export function realS3FromEnv(): (() => Promise<S3Target>) | undefined {
  const endpoint = process.env.SITES_S3_ENDPOINT;
  if (!endpoint) return undefined;
  const accessKey = process.env.SITES_S3_ACCESS_KEY ?? '';
  const secretKey = process.env.SITES_S3_SECRET_KEY ?? '';
  let n = 0;
  return async () => {
    const bucket = `sites-contract-${process.pid}-${Date.now().toString(36)}-${++n}`;
    return {
      name: `S3 at ${endpoint}`,
      endpoint,
      accessKey,
      secretKey,
      bucket,
      stop: () => removeBucket(endpoint, accessKey, secretKey, bucket),
    };
  };
}

/** s3rver on a free loopback port (see s3-server.ts), as an `S3Target`. */
export async function localS3(): Promise<S3Target> {
  const s3 = await startS3Server();
  return { name: 's3rver', endpoint: s3.endpoint, accessKey: s3.accessKey, secretKey: s3.secretKey, bucket: s3.bucket, stop: () => s3.stop() };
}

async function removeBucket(endpoint: string, accessKey: string, secretKey: string, bucket: string): Promise<void> {
  const url = new URL(endpoint);
  const useSSL = url.protocol === 'https:';
  const client = new Client({ endPoint: url.hostname, port: url.port ? Number(url.port) : useSSL ? 443 : 80, useSSL, accessKey, secretKey, pathStyle: true });
  if (!(await client.bucketExists(bucket))) return;
  const names: string[] = [];
  for await (const item of client.listObjectsV2(bucket, '', true)) if ((item as { name?: string }).name) names.push((item as { name: string }).name);
  for (let i = 0; i < names.length; i += 1000) await client.removeObjects(bucket, names.slice(i, i + 1000));
  await client.removeBucket(bucket);
}

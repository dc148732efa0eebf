import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, mkdtemp, rm, unlink } from 'node:fs/promises';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { AccessKeyRequiredError, Client, InvalidArgumentError, InvalidBucketNameError, InvalidEndpointError, InvalidPortError, SecretKeyRequiredError } from 'minio';
import { InsufficientStorageError } from '../../domain/errors.ts';
import { classifyS3Error, codeOf, describeS3Error } from './s3-errors.ts';
import type { BlobStore, ByteRange, PutResult } from '../../domain/ports.ts';
import { ConfigError } from '../config.ts';
import { assertBlobHash, assertRange, rejectUnexpected, removeStaleTemp, spoolToTemp } from './spool.ts';

export type S3BlobStoreConfig = {
  /** `http://host:port` or `https://host[:port]` (`SITES_S3_ENDPOINT`). */
  readonly endpoint: string;
  readonly bucket: string;
  readonly accessKey: string;
  readonly secretKey: string;
  /** Omitted: MinIO's default (`us-east-1`) for a new bucket, the server's answer for an existing one. */
  readonly region?: string;
  /** Where uploads are spooled while hashed; a private folder under the OS temp dir by default. */
  readonly tmpDir?: string;
};

const PREFIX = 'blobs/';
const KEY_RE = /^blobs\/([0-9a-f]{64})$/;
const key = (hash: string): string => PREFIX + hash;

const isMissing = (err: unknown): boolean => classifyS3Error(err) === 'missing';
/** Tries of one upload (the first and two more), each from the start of the spooled file. */
const UPLOAD_TRIES = 3;
const RETRY_BASE_MS = 200;

/**
 * The production file store: content-addressed objects `blobs/<sha256>` in one bucket
 * of MinIO (or any S3), created when missing.
 *
 * Why uploads bypass `client.putObject`: minio v8 reads a stream of up to its part size
 * (64 MiB) into memory to sign it. Spooling to a temp file first is needed anyway (the
 * key is the content's hash, known only at the end), and that hash is exactly the
 * payload SHA-256 that signature v4 wants, so the file is sent as one streamed, signed
 * PUT. Memory stays flat whatever the blob size (single PUT limit: 5 GiB).
 *
 * Uploads go through a client whose own retry is off: minio 8 retries a 5xx by sending the
 * same body again, and a stream it has already consumed sends nothing (the server then waits
 * for bytes that never come). The adapter retries itself, each time with a new stream from
 * the spooled file (or the same bytes), after a short backoff.
 */
export async function openS3BlobStore(cfg: S3BlobStoreConfig): Promise<BlobStore> {
  const url = parseEndpoint(cfg.endpoint);
  if (!cfg.bucket) throw new ConfigError('S3 bucket name is empty');
  const useSSL = url.protocol === 'https:';
  const agent = useSSL ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  const options = {
    endPoint: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port ? Number(url.port) : useSSL ? 443 : 80,
    useSSL,
    accessKey: cfg.accessKey,
    secretKey: cfg.secretKey,
    ...(cfg.region ? { region: cfg.region } : {}),
    pathStyle: true,
    transportAgent: agent,
  };
  // Requests without a body may keep the library's one retry; uploads may not (see above).
  const client = new Client(options);
  const uploads = new Client({ ...options, retryOptions: { disableRetry: true } });
  const bucket = cfg.bucket;
  try {
    await ensureBucket(client, bucket, cfg.region);
  } catch (err) {
    agent.destroy();
    throw err;
  }

  const ownTmp = !cfg.tmpDir;
  const tmpDir = cfg.tmpDir ?? (await mkdtemp(join(tmpdir(), 'sites-s3-spool-')));
  await mkdir(tmpDir, { recursive: true });
  if (!ownTmp) await removeStaleTemp(tmpDir); // a shared spool folder may hold a crashed run's files

  async function exists(hash: string): Promise<boolean> {
    try {
      await client.statObject(bucket, key(hash));
      return true;
    } catch (err) {
      if (isMissing(err)) return false;
      throw err;
    }
  }

  /** One signed PUT, streamed; the signature covers `hash`, so S3 rejects corrupted bytes. */
  async function putOnce(hash: string, size: number, body: Readable | Buffer): Promise<void> {
    const res = await uploads.makeRequestStreamAsync(
      {
        method: 'PUT',
        bucketName: bucket,
        objectName: key(hash),
        headers: { 'Content-Length': size, 'Content-Type': 'application/octet-stream' },
      },
      body,
      // Over TLS minio signs UNSIGNED-PAYLOAD and wants an empty sum here.
      uploads.enableSHA256 ? hash : '',
      [200],
      cfg.region ?? '',
    );
    res.resume();
    await new Promise((resolve, reject) => res.on('end', resolve).on('error', reject));
  }

  /**
   * Uploads `hash`, taking a fresh body from `open` for each try: a transient failure (a 5xx,
   * a broken connection) is tried again from the start; a full store is the port's 507.
   */
  async function upload(hash: string, size: number, open: () => Readable | Buffer): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const body = open();
      try {
        await putOnce(hash, size, body);
        return;
      } catch (err) {
        const failure = classifyS3Error(err);
        if (failure === 'full') throw new InsufficientStorageError(`S3 file store is out of space (${codeOf(err) ?? 'HTTP 507'}): ${(err as Error).message}`);
        if (failure !== 'transient' || attempt >= UPLOAD_TRIES) {
          throw new Error(`S3 upload of blob ${hash} failed${attempt > 1 ? ` after ${attempt} tries` : ''}: ${describeS3Error(err)}`, { cause: err });
        }
        await sleep(RETRY_BASE_MS * 2 ** (attempt - 1) * (1 + Math.random()));
      } finally {
        if (!Buffer.isBuffer(body)) body.destroy();
      }
    }
  }

  async function get(hash: string, range?: ByteRange): Promise<Readable | undefined> {
    assertBlobHash(hash);
    if (range) assertRange(range);
    try {
      return range
        ? await client.getPartialObject(bucket, key(hash), range.start, range.end - range.start + 1)
        : await client.getObject(bucket, key(hash));
    } catch (err) {
      if (isMissing(err)) return undefined;
      if (classifyS3Error(err) === 'range') {
        throw new RangeError(`byte range ${range?.start}-${range?.end} starts past the end of blob ${hash}`);
      }
      throw err;
    }
  }

  return {
    async put(source: Readable | AsyncIterable<Uint8Array>, expected?: string): Promise<PutResult> {
      const spooled = await spoolToTemp(source, tmpDir);
      // Checked on the spooled copy, before the PUT: the object never exists under a wrong key.
      await rejectUnexpected(spooled, expected);
      try {
        if (await exists(spooled.hash)) return { hash: spooled.hash, size: spooled.size, created: false };
        await upload(spooled.hash, spooled.size, () => createReadStream(spooled.path));
        return { hash: spooled.hash, size: spooled.size, created: true };
      } finally {
        await unlink(spooled.path).catch(() => undefined);
      }
    },

    async putBytes(bytes: Uint8Array): Promise<PutResult> {
      const hash = createHash('sha256').update(bytes).digest('hex');
      const size = bytes.byteLength;
      if (await exists(hash)) return { hash, size, created: false };
      const body = Buffer.from(bytes.buffer, bytes.byteOffset, size);
      await upload(hash, size, () => body);
      return { hash, size, created: true };
    },

    async has(hash: string): Promise<boolean> {
      assertBlobHash(hash);
      return exists(hash);
    },

    async stat(hash: string): Promise<{ size: number } | undefined> {
      assertBlobHash(hash);
      try {
        return { size: (await client.statObject(bucket, key(hash))).size };
      } catch (err) {
        if (isMissing(err)) return undefined;
        throw err;
      }
    },

    get,

    async getBytes(hash: string): Promise<Buffer | undefined> {
      const stream = await get(hash);
      if (!stream) return undefined;
      const chunks: Buffer[] = [];
      for await (const chunk of stream) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks);
    },

    async delete(hash: string): Promise<void> {
      assertBlobHash(hash);
      // S3 answers 204 for a missing key too, so "already gone" needs no special case.
      await client.removeObject(bucket, key(hash));
    },

    async *list(): AsyncIterable<string> {
      for await (const item of client.listObjectsV2(bucket, PREFIX, true)) {
        const match = KEY_RE.exec((item as { name?: string }).name ?? '');
        if (match) yield match[1];
      }
    },

    async close(): Promise<void> {
      agent.destroy();
      if (ownTmp) await rm(tmpDir, { recursive: true, force: true });
    },
  };
}

/** An error that waiting will not cure: the endpoint answered, and refused these credentials or this bucket name. */
export function s3Refused(err: unknown): boolean {
  // The client refused the settings itself (bucket name, endpoint, keys).
  const settings = [InvalidArgumentError, InvalidBucketNameError, InvalidEndpointError, InvalidPortError, AccessKeyRequiredError, SecretKeyRequiredError];
  if (settings.some((type) => err instanceof type)) return true;
  return ['AccessDenied', 'InvalidAccessKeyId', 'SignatureDoesNotMatch', 'InvalidBucketName', 'AllAccessDisabled'].includes(codeOf(err) ?? '');
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function parseEndpoint(endpoint: string): URL {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new ConfigError(`S3 endpoint ${JSON.stringify(endpoint)} is not a URL (expected e.g. http://127.0.0.1:9000)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`S3 endpoint ${JSON.stringify(endpoint)} must use http or https`);
  }
  if (url.pathname !== '/' && url.pathname !== '') {
    throw new ConfigError(`S3 endpoint ${JSON.stringify(endpoint)} must not have a path (the bucket is configured separately)`);
  }
  return url;
}

/** Creates the bucket unless it exists; a concurrent creator (another instance) is fine. */
async function ensureBucket(client: Client, bucket: string, region: string | undefined): Promise<void> {
  if (await client.bucketExists(bucket)) return;
  try {
    await client.makeBucket(bucket, region ?? 'us-east-1');
  } catch (err) {
    if (!['BucketAlreadyOwnedByYou', 'BucketAlreadyExists'].includes(codeOf(err) ?? '')) throw err;
  }
}

import { createReadStream, readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import type { DigestCache } from './digest-cache.ts';
import { ClientError } from './errors.ts';
import type { SiteFile } from './folder.ts';
import { hashFiles, mapLimit } from './hash.ts';
import { expectJson, send, unreachable, type Answer } from './http.ts';
import { progressBar } from './progress.ts';

export type PublishMeta = { readonly group: string; readonly slug: string; readonly title?: string };

/** The service's answer to a publish (spec §4 `PublishResult`), as far as the client reads it. */
export type PublishResult = {
  readonly url: string;
  readonly revision: string;
  /** True when the site already had exactly this: nothing was recorded (spec §4). */
  readonly unchanged?: boolean;
};

/** A preview as the service describes it (spec §14 `Preview`), as far as the client reads it. */
export type Preview = {
  readonly name: string;
  readonly url: string;
  readonly revision: string;
  readonly files?: number;
  readonly size?: number;
  readonly title?: string;
  readonly updated_at?: string;
  readonly expires_at?: string;
  /** Who first published it: a key, a user, an MCP connection (each with a `name`). */
  readonly created_by?: { readonly kind: string; readonly name: string };
};

/** The answer to a preview publish (spec §14 `PreviewResult`): the counts are against the live revision. */
export type PreviewResult = {
  readonly preview: Preview;
  readonly changes: { readonly added: number; readonly changed: number; readonly removed: number };
  /** Preview URLs of at most 20 added or changed HTML pages, added first. */
  readonly pages: readonly string[];
  readonly unchanged?: boolean;
};

export type DeployOutcome<R = PublishResult> = {
  readonly result: R;
  /** Files whose content the site did not have yet. */
  readonly newFiles: number;
  /** Bytes sent in blob uploads (each missing content once). */
  readonly uploadedBytes: number;
};

export type DeployOptions = {
  readonly base: URL;
  readonly key: string;
  readonly meta: PublishMeta;
  /** Publish this preview of the site (spec §14) instead of its live content. */
  readonly preview?: string;
  readonly files: readonly SiteFile[];
  /** Uploads at once (16: one upload's round trip hides behind the others', locally and far away). */
  readonly uploadConcurrency?: number;
  /** Digests of the last run, so only changed files are hashed again (client/digest-cache.ts). */
  readonly cache?: DigestCache;
  /** Tries per blob after the first (spec'd as two: a flaky network should not fail a CI job). */
  readonly retries?: number;
  readonly retryDelayMs?: number;
};

const RETRYABLE = new Set([408, 429, 500, 502, 503, 504]);
/** A connection cut while sending: the server (or a proxy) may have answered first. */
const CUT_OFF = new Set(['EPIPE', 'ECONNRESET']);
const PACED_CHUNK = 16 * 1024;
/** Files up to this size are read whole and sent as one buffer. */
const SMALL_FILE = 1024 * 1024;
const PACED_BYTES = 1024 * 1024;

/**
 * A file for a retry after a cut connection: its first MiB in small chunks with a pause
 * between them, then the rest at full speed. A server or proxy that refuses an upload early
 * (401, 413) and closes the connection at once makes the client's next write fail, and Node
 * then drops the answer that had already arrived; pausing lets that answer be read, so the
 * failure can say what the server said instead of "connection reset".
 */
async function* paced(source: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  let sent = 0;
  for await (const chunk of source) {
    if (sent < PACED_BYTES) await new Promise((r) => setTimeout(r, 10));
    sent += chunk.length;
    yield chunk;
  }
}

/**
 * Publishes through the incremental deploy protocol (spec §10): send the manifest of
 * digests, upload only the contents the site lacks, then publish. Files are hashed and
 * uploaded as streams, a few at a time, so a 10,000-file / 256 MB folder never sits in memory.
 */
export async function deploy(options: DeployOptions & { preview?: undefined }): Promise<DeployOutcome<PublishResult>>;
export async function deploy(options: DeployOptions & { preview: string }): Promise<DeployOutcome<PreviewResult>>;
export async function deploy(options: DeployOptions): Promise<DeployOutcome<PublishResult | PreviewResult>> {
  const { base, key, meta, files } = options;
  const auth = { Authorization: `Bearer ${key}` };
  const call = async (method: string, path: string, headers: Record<string, string>, body?: Parameters<typeof send>[3]): Promise<Answer> => {
    try {
      return await send(new URL(path, base), method, { ...auth, ...headers }, body);
    } catch (err) {
      throw unreachable(err, base);
    }
  };

  const what = options.preview ? `publish of the preview ${options.preview}` : 'publish';
  const totalBytes = files.reduce((n, f) => n + f.size, 0);
  const hashing = progressBar('hashing  ', totalBytes, files.length);
  const digests = await hashFiles(files, (f) => hashing.add(f.size), options.cache).finally(() => hashing.end());
  const manifest: Record<string, string> = {};
  files.forEach((f, i) => (manifest[f.name] = digests[i]!));

  // Compressed: a manifest is mostly paths and digests, sent whole on every publish (10,000 files ≈ 1 MB of JSON).
  const body = gzipSync(JSON.stringify({ meta, files: manifest, ...(options.preview ? { preview: options.preview } : {}) }));
  const created = expectJson<{ id: string; required: string[] }>(
    await call('POST', '/ingest/deploys', { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip', 'Content-Length': String(body.length) }, body),
    what,
    base,
  );
  const required = new Set(created.required);
  // One upload per missing content, from the first file that has it.
  const uploads = new Map<string, SiteFile>();
  files.forEach((f, i) => {
    if (required.has(digests[i]!) && !uploads.has(digests[i]!)) uploads.set(digests[i]!, f);
  });
  const newFiles = digests.filter((d) => required.has(d)).length;
  const uploadedBytes = [...uploads.values()].reduce((n, f) => n + f.size, 0);

  const bar = progressBar('uploading', uploadedBytes, uploads.size);
  const retries = options.retries ?? 2;
  try {
    await mapLimit([...uploads], options.uploadConcurrency ?? 16, async ([digest, file]) => {
      const path = `/ingest/deploys/${encodeURIComponent(created.id)}/files/${digest}`;
      let cutOff = false;
      for (let attempt = 0; ; attempt++) {
        let answer: Answer | undefined;
        let failure: unknown;
        try {
          // After a connection cut mid-upload, the retry goes slowly at first (see `paced`).
          const source = cutOff
            ? Readable.from(paced(createReadStream(file.path, { highWaterMark: PACED_CHUNK })))
            : file.size <= SMALL_FILE
              ? readFileSync(file.path) // most files: one read, one write
              : createReadStream(file.path);
          answer = await send(new URL(path, base), 'PUT', { ...auth, 'Content-Type': 'application/octet-stream', 'Content-Length': String(file.size) }, source);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).path) throw err; // the local file, not the network
          const mapped = unreachable(err, base);
          if (mapped instanceof ClientError && /connection refused/.test(mapped.message)) throw mapped;
          cutOff = CUT_OFF.has((err as NodeJS.ErrnoException).code ?? '');
          failure = mapped;
        }
        if (answer && answer.status >= 200 && answer.status < 300) break;
        if (answer && !RETRYABLE.has(answer.status)) expectJson(answer, `upload of ${file.name}`, base);
        if (attempt >= retries) throw failure ?? new ClientError(`upload of ${file.name} failed (${answer!.status}) after ${retries + 1} tries`);
        await new Promise((r) => setTimeout(r, (options.retryDelayMs ?? 500) * (attempt + 1)));
      }
      bar.add(file.size);
    });
  } finally {
    bar.end();
  }

  const result = expectJson<PublishResult | PreviewResult>(await call('POST', `/ingest/deploys/${encodeURIComponent(created.id)}/publish`, {}), what, base);
  return { result, newFiles, uploadedBytes };
}

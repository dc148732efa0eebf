/**
 * What an error from the S3 client (minio 8) means for the file-store port. The client
 * throws an `S3Error` with the server's `<Code>` for an answer it parsed, a plain `Error`
 * saying "Retryable HTTP status: NNN" for a 408/429/5xx it did not parse (with its own retry
 * off, or after it), and Node's errors for the network.
 */
export type S3Failure =
  /** The object (or bucket) is not there: the port answers undefined / false. */
  | 'missing'
  /** A byte range past the end of the object: the port's RangeError. */
  | 'range'
  /** The server's disks are full or the bucket's quota is used up: the port's 507. */
  | 'full'
  /** Worth another try from the start (the server is starting, overloaded, or the connection broke). */
  | 'transient'
  | 'other';

const MISSING = new Set(['NoSuchKey', 'NotFound', 'NoSuchObject']);
/** MinIO's codes for full disks and an exhausted bucket quota (any S3 may say QuotaExceeded). */
const FULL = new Set(['XMinioStorageFull', 'XMinioAdminBucketQuotaExceeded', 'QuotaExceeded']);
/** Codes S3 servers answer while they cannot serve for now: 500, 503, MinIO starting or healing. */
const BUSY = new Set(['InternalError', 'ServiceUnavailable', 'SlowDown', 'RequestTimeout', 'XMinioServerNotInitialized', 'XMinioStorageNotReady']);
/** Node's network errors that a new connection may not meet. */
const NETWORK = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'ECONNABORTED', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'UND_ERR_SOCKET']);

export const codeOf = (err: unknown): string | undefined => {
  const code = (err as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
};

/** The HTTP status the client reported without parsing the answer, if that is what `err` is. */
export function unparsedStatus(err: unknown): number | undefined {
  const m = /Retryable HTTP status: (\d{3})/.exec(err instanceof Error ? err.message : '');
  return m ? Number(m[1]) : undefined;
}

export function classifyS3Error(err: unknown): S3Failure {
  const code = codeOf(err);
  if (code !== undefined && MISSING.has(code)) return 'missing';
  if (code === 'InvalidRange') return 'range';
  if (code !== undefined && FULL.has(code)) return 'full';
  if (code !== undefined && (BUSY.has(code) || NETWORK.has(code))) return 'transient';
  const status = unparsedStatus(err);
  if (status === 507) return 'full';
  if (status !== undefined) return 'transient'; // 408, 429, 499, 500, 502, 503, 504, 520
  if (err instanceof Error && /socket hang up|other side closed/i.test(err.message)) return 'transient';
  return 'other';
}

/** One line for a failure the port does not name: the code or status, then the message. */
export function describeS3Error(err: unknown): string {
  const code = codeOf(err) ?? (unparsedStatus(err) ? `HTTP ${unparsedStatus(err)}` : undefined);
  const message = err instanceof Error ? err.message : String(err);
  return code ? `${code}: ${message}` : message;
}

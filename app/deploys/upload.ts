import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { Identity } from '../../domain/auth.ts';
import { authorizeAddress, refuseViewer } from '../authorize.ts';
import { accessibleDeploy, assertDigest, assertOpen, type Deploy } from '../../domain/deploy/deploy.ts';
import { NotFoundError, TooLargeError, ValidationError } from '../../domain/errors.ts';
import type { AppDeps } from '../deps.ts';

/** Bodies up to this size are read whole and hashed here; larger ones stream to the store, which verifies them. */
const SMALL_BODY = 256 * 1024;

/**
 * The deploy as this caller may use it: its own key's (or any, for an admin), not expired;
 * `publish` on its site, or `preview` for a preview deploy (spec §14). A viewer, who may publish
 * nowhere, is refused before the lookup.
 */
export async function loadDeploy(deps: AppDeps, identity: Identity, id: string): Promise<Deploy> {
  refuseViewer(identity);
  const deploy = accessibleDeploy(await deps.deploys.getDeploy(id), identity, deps.now(), id);
  authorizeAddress(identity, deploy.preview !== undefined ? 'preview' : 'publish', deploy.address);
  return deploy;
}

/**
 * `PUT /ingest/deploys/{id}/files/{sha256}` (spec §10): stores one content of the deploy's
 * manifest. The body is hashed while it arrives and stored only if its SHA-256 is the
 * digest it was sent under (else 400, nothing stored); a body over SITES_MAX_UPLOAD_BYTES
 * and a deploy whose uploads pass SITES_MAX_EXTRACT_BYTES answer 413. Content the store
 * already has is not written again (204 all the same).
 */
export type UploadDeployFileInput = {
  readonly deploy: string;
  /** The digest the body is sent under (the URL's `{sha256}`). */
  readonly digest: string;
  readonly body: Readable | AsyncIterable<Uint8Array>;
  /** The body's declared length, when the client sent one (refused early when too large). */
  readonly declaredSize?: number;
};

export async function uploadDeployFile(deps: AppDeps, identity: Identity, input: UploadDeployFileInput): Promise<void> {
  const { deploy: id, digest, body, declaredSize } = input;
  assertDigest(digest);
  const { maxUploadBytes, maxExtractBytes } = deps.limits;
  const deploy = await loadDeploy(deps, identity, id);
  assertOpen(deploy);
  const listed = await deps.deploys.getDeployBlob(id, digest);
  if (!listed) throw new NotFoundError(`deploy ${id} lists no file with the digest ${digest}`);
  if (declaredSize !== undefined && declaredSize > maxUploadBytes) throw bodyTooLarge(maxUploadBytes);
  const counts = listed.required && listed.size === undefined;
  if (counts && declaredSize !== undefined && deploy.uploadedBytes + declaredSize > maxExtractBytes) throw totalTooLarge(maxExtractBytes);

  await deps.gate.shared(async () => {
    const size = await store(deps, body, digest, maxUploadBytes);
    const recorded = await deps.deploys.recordDeployUpload(id, digest, size, maxExtractBytes);
    if (recorded === 'over_limit') throw totalTooLarge(maxExtractBytes);
    if (recorded === 'closed') assertOpen(await loadDeploy(deps, identity, id)); // published meanwhile: 409; gone: 404
  });
}

/** Stores the body under `digest` if that is its SHA-256; returns its size. */
async function store(deps: AppDeps, body: Readable | AsyncIterable<Uint8Array>, digest: string, limit: number): Promise<number> {
  const iterator = (body as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
  const chunks: Buffer[] = [];
  let size = 0;
  for (;;) {
    const next = await iterator.next();
    if (next.done) break;
    const chunk = Buffer.from(next.value.buffer, next.value.byteOffset, next.value.byteLength);
    size += chunk.length;
    if (size > limit) throw bodyTooLarge(limit);
    chunks.push(chunk);
    if (size > SMALL_BODY) {
      // A large file: streamed through the store, which hashes it and checks the digest before it becomes visible.
      const put = await deps.blobs.put(rest(chunks, iterator, size, limit), digest);
      return put.size;
    }
  }
  const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
  const actual = createHash('sha256').update(bytes).digest('hex');
  if (actual !== digest) throw new ValidationError(`the content's SHA-256 is ${actual}, not ${digest}: nothing was stored`);
  await deps.blobs.putBytes(bytes);
  return size;
}

/** The chunks read so far, then the rest of the body, still bounded by `limit`. */
async function* rest(head: Buffer[], iterator: AsyncIterator<Uint8Array>, read: number, limit: number): AsyncGenerator<Uint8Array> {
  yield* head.splice(0);
  let size = read;
  for (;;) {
    const next = await iterator.next();
    if (next.done) return;
    size += next.value.byteLength;
    if (size > limit) throw bodyTooLarge(limit);
    yield next.value;
  }
}

const bodyTooLarge = (limit: number) => new TooLargeError(`the file is larger than ${limit} bytes (SITES_MAX_UPLOAD_BYTES)`);
const totalTooLarge = (limit: number) => new TooLargeError(`the deploy's uploads add up to more than ${limit} bytes (SITES_MAX_EXTRACT_BYTES)`);

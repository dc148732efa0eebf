import Router from '@koa/router';
import type { Context } from 'koa';
import { createGunzip } from 'node:zlib';
import { readPublishMeta } from '../app/contract/publish.ts';
import { createDeploy } from '../app/deploys/create.ts';
import { publishDeploy } from '../app/deploys/publish.ts';
import { uploadDeployFile } from '../app/deploys/upload.ts';
import type { Identity } from '../domain/auth.ts';
import { MissingFilesError } from '../domain/deploy/deploy.ts';
import { TooLargeError, UnsupportedMediaTypeError, ValidationError } from '../domain/errors.ts';
import { requireKey, requireUser } from './auth.ts';
import type { ApiContext } from './context.ts';
import { noteTarget, noteWrite } from './write-log.ts';

/**
 * Incremental deploys (spec §10): the manifest of digests first, then only the contents
 * the site lacks, then one publish through the same command as an archive publish. On the
 * ingest plane (`/ingest/deploys…`) with API keys only and `publish` on the target; and on
 * the management plane (`/api/deploys…`) for admins, as `POST /api/sites` mirrors
 * `POST /ingest/sites`, so the portal, signed in through the proxy, can publish a dropped
 * folder sending only what changed. The cross-origin guard covers the latter like every
 * other write a signed-in browser can make. The use cases (app/deploys/) decide who may.
 */
export function deploysRouter(api: ApiContext): Router {
  const r = new Router();
  mountDeploys(r, api, '/ingest/deploys', requireKey);
  mountDeploys(r, api, '/api/deploys', requireUser);
  return r;
}

function mountDeploys(r: Router, api: ApiContext, base: string, authenticate: (api: ApiContext, ctx: Context) => Promise<Identity>): void {
  r.post(base, async (ctx) => {
    const identity = await authenticate(api, ctx);
    // Read when the use case asks: a viewer is refused before the body (403 before 400).
    const request = async () => {
      const body = await readManifestJson(ctx, manifestBodyLimit(api));
      if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ValidationError('the body must be a JSON object {"meta": {…}, "files": {path: sha256, …}}');
      const { meta, files, preview } = body as { meta?: unknown; files?: unknown; preview?: unknown };
      if (meta === undefined) throw new ValidationError('meta is required');
      const parsed = readPublishMeta(meta);
      noteTarget(parsed, (site) => noteWrite(ctx, { site }));
      if (files === undefined) throw new ValidationError('files is required');
      if (preview !== undefined && typeof preview !== 'string') throw new ValidationError('preview must be a string: the preview name');
      return { meta: parsed, files, ...(preview !== undefined ? { preview } : {}) };
    };
    const created = await createDeploy(api.deps, identity, request);
    ctx.status = 201;
    ctx.body = created;
  });

  r.put(`${base}/:id/files/:sha256`, async (ctx) => {
    const identity = await authenticate(api, ctx);
    const length = ctx.get('content-length');
    const declaredSize = /^\d+$/.test(length) ? Number(length) : undefined;
    await uploadDeployFile(api.deps, identity, { deploy: ctx.params.id!, digest: ctx.params.sha256!, body: ctx.req, ...(declaredSize !== undefined ? { declaredSize } : {}) });
    ctx.status = 204;
  });

  r.post(`${base}/:id/publish`, async (ctx) => {
    const identity = await authenticate(api, ctx);
    try {
      ctx.body = await publishDeploy(api.deps, identity, { deploy: ctx.params.id! });
    } catch (err) {
      // Spec §10: the 409 names what is still missing, so a client can upload exactly that.
      if (!(err instanceof MissingFilesError)) throw err;
      ctx.status = 409;
      ctx.body = { error: err.message, code: err.code, missing: [...err.missing] };
    }
  });
}

/** The manifest of the largest site allowed fits: about 1 KiB per entry, at least 1 MiB. */
const manifestBodyLimit = (api: ApiContext) => Math.max(1024 * 1024, api.deps.limits.maxExtractEntries * 1024);

/**
 * Reads the deploy request's JSON, plain or gzip-compressed (`Content-Encoding: gzip`: a
 * 10,000-file manifest is mostly digests and paths, and clients send it on every publish).
 * Bounded by `limit` after decompression, so a small compressed body cannot expand past it.
 */
async function readManifestJson(ctx: Context, limit: number): Promise<unknown> {
  const type = ctx.get('content-type');
  if (type && !/^application\/(?:[\w.+-]*\+)?json\b/i.test(type)) throw new UnsupportedMediaTypeError('send application/json');
  const encoding = (ctx.get('content-encoding') || 'identity').trim().toLowerCase();
  if (encoding !== 'identity' && encoding !== 'gzip') throw new UnsupportedMediaTypeError(`Content-Encoding ${JSON.stringify(encoding)} is not supported (gzip or none)`);
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > limit) throw new TooLargeError(`the manifest is larger than ${limit} bytes`);
  let source: AsyncIterable<Buffer> = ctx.req;
  if (encoding === 'gzip') {
    const gunzip = createGunzip();
    ctx.req.on('error', (err) => gunzip.destroy(err));
    source = ctx.req.pipe(gunzip);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of source) {
      size += chunk.length;
      if (size > limit) throw new TooLargeError(`the manifest is larger than ${limit} bytes`);
      chunks.push(chunk);
    }
  } catch (err) {
    if (err instanceof TooLargeError) throw err;
    if (encoding === 'gzip' && (err as NodeJS.ErrnoException).code?.startsWith('Z_')) throw new ValidationError('the body is not valid gzip');
    throw err;
  } finally {
    if (source !== ctx.req) (source as NodeJS.ReadableStream & { destroy(): void }).destroy();
  }
  const text = Buffer.concat(chunks, size).toString('utf8');
  if (text.trim() === '') throw new ValidationError('the body is empty: send {"meta": {…}, "files": {path: sha256, …}}');
  try {
    return JSON.parse(text);
  } catch {
    throw new ValidationError('the body is not valid JSON');
  }
}

import type { Identity } from '../../domain/auth.ts';
import { assertOpen, MissingFilesError, missingDigests, parseDeployManifest, type Deploy } from '../../domain/deploy/deploy.ts';
import { ConflictError, TooLargeError } from '../../domain/errors.ts';
import type { AppDeps } from '../deps.ts';
import type { PreviewResult } from '../contract/preview.ts';
import type { PublishResult } from '../contract/publish.ts';
import { commitPreview } from '../previews/publish-preview.ts';
import { commitFiles } from '../publish/commit.ts';
import { publishResult } from '../publish/result.ts';
import type { IncomingFile } from '../publish/store-files.ts';
import { loadDeploy } from './upload.ts';

/**
 * `POST /ingest/deploys/{id}/publish` (spec §10): once every required content is uploaded,
 * the manifest becomes the site's new revision through `commitFiles`, the one publish
 * path: the same events, revision id, atomic switch, retention and favicon detection as an
 * archive publish of the same files. The deploy is claimed first (open → publishing, a
 * compare-and-set), so two publishes of one deploy never make two revisions; a failed
 * publish opens it again, a successful one finishes it (409 from then on).
 */
export async function publishDeploy(deps: AppDeps, identity: Identity, input: { readonly deploy: string }): Promise<PublishResult | PreviewResult> {
  const id = input.deploy;
  const deploy = await loadDeploy(deps, identity, id);
  assertOpen(deploy);
  if (!(await deps.deploys.setDeployStatus(id, 'open', 'publishing'))) {
    // Another publish of this deploy claimed it first: 409 (published or being published), 404 (gone).
    assertOpen(await loadDeploy(deps, identity, id));
    throw new ConflictError(`deploy ${id} is being published by another request; try again`);
  }
  try {
    if (deploy.preview !== undefined) {
      // A preview deploy (spec §14): its files become the preview's content; the live site is never touched.
      const { title, description, repo } = deploy.meta;
      const meta = { ...(title !== undefined ? { title } : {}), ...(description !== undefined ? { description } : {}), ...(repo !== undefined ? { repo } : {}) };
      const result = await commitPreview(deps, identity.actor, { address: deploy.address, name: deploy.preview }, () => meta, await deployFiles(deps, deploy));
      await deps.deploys.setDeployStatus(id, 'publishing', 'published', result.preview.revision);
      return result;
    }
    const outcome = await commitFiles(deps, identity.actor, { address: deploy.address, meta: deploy.meta }, await deployFiles(deps, deploy));
    await deps.deploys.setDeployStatus(id, 'publishing', 'published', outcome.revision.id);
    return publishResult(deps, outcome, identity);
  } catch (err) {
    await deps.deploys.setDeployStatus(id, 'publishing', 'open').catch(() => undefined);
    throw err;
  }
}

/** The deploy's files as content already in the store; 409 with the digests still missing. */
async function deployFiles(deps: AppDeps, deploy: Deploy): Promise<AsyncIterable<IncomingFile>> {
  const blobs = await deps.deploys.listDeployBlobs(deploy.id);
  const missing = missingDigests(blobs);
  if (missing.length > 0) throw new MissingFilesError(missing);
  const sizes = new Map(blobs.map((b) => [b.hash, b.size!]));
  const bytes = await deps.blobs.getBytes(deploy.manifest);
  if (!bytes) throw new Error(`the manifest of deploy ${deploy.id} is missing from the file store`);
  const files = parseDeployManifest(bytes);
  let total = 0;
  for (const digest of files.values()) total += sizes.get(digest)!;
  // The same bound as an archive's extracted bytes: a deploy cannot make a site no archive could.
  if (total > deps.limits.maxExtractBytes) {
    throw new TooLargeError(`the site's files add up to more than ${deps.limits.maxExtractBytes} bytes (SITES_MAX_EXTRACT_BYTES)`);
  }
  return (async function* () {
    for (const [path, hash] of files) yield { path, content: { kind: 'stored', hash, size: sizes.get(hash)! } };
  })();
}

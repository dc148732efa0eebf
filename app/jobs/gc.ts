import { parseManifest } from '../../domain/manifest.ts';
import type { Identity } from '../../domain/auth.ts';
import { requireAdmin } from '../authorize.ts';
import type { AppDeps } from '../deps.ts';

export type DroppedRevision = { readonly manifest: string; readonly favicon?: string };

/**
 * Deletes the blobs of revisions that are no longer retained, except those another
 * retained revision (of any site) still references. Runs under the exclusive gate.
 */
export async function collectDropped(deps: AppDeps, dropped: readonly DroppedRevision[]): Promise<number> {
  if (dropped.length === 0) return 0;
  return deps.gate.exclusive(async () => {
    const candidates = new Set<string>();
    for (const rev of dropped) {
      candidates.add(rev.manifest);
      if (rev.favicon) candidates.add(rev.favicon);
      const bytes = await deps.blobs.getBytes(rev.manifest);
      if (!bytes) continue;
      const manifest = parseManifest(bytes);
      for (const entry of manifest.files.values()) candidates.add(entry.hash);
      if (manifest.rules) candidates.add(manifest.rules);
    }
    return deleteUnreferenced(deps, [...candidates]);
  });
}

/** Deletes the candidates no retained revision references. Caller holds the exclusive gate. */
export async function deleteUnreferenced(deps: AppDeps, candidates: readonly string[]): Promise<number> {
  let deleted = 0;
  const BATCH = 1000;
  for (let i = 0; i < candidates.length; i += BATCH) {
    const batch = candidates.slice(i, i + BATCH);
    const referenced = await deps.blobIndex.referencedBlobs(batch);
    for (const hash of batch) {
      if (referenced.has(hash)) continue;
      await deps.blobs.delete(hash);
      deleted++;
    }
  }
  return deleted;
}

/** Expired deploys read from the read model at a time. */
const DEPLOY_BATCH = 100;

/**
 * Ends every deploy whose hour is over (spec §10), published or not: its record goes, then
 * whatever it alone kept is deleted (uploads never published, the manifest, and contents
 * the site has dropped since). Returns how many deploys ended and how many blobs went.
 */
export async function collectExpiredDeploys(deps: AppDeps, identity: Identity): Promise<{ deploys: number; deleted: number }> {
  requireAdmin(identity);
  let deploys = 0;
  let deleted = 0;
  for (;;) {
    const batch = await deps.deploys.listExpiredDeploys(deps.now().toISOString(), DEPLOY_BATCH);
    for (const deploy of batch) {
      const candidates = [deploy.manifest, ...(await deps.deploys.listDeployBlobs(deploy.id)).map((b) => b.hash)];
      // The record first: while it exists, its digests count as referenced.
      await deps.deploys.deleteDeploy(deploy.id);
      deleted += await deps.gate.exclusive(() => deleteUnreferenced(deps, candidates));
      deploys++;
    }
    if (batch.length < DEPLOY_BATCH) return { deploys, deleted };
  }
}

/**
 * A full pass: every stored blob that no retained revision (nor a deploy still open)
 * references is deleted, after the expired deploys have ended. Cleans up after crashes
 * (uploads killed midway). Blocks publishes while it runs.
 */
export async function collectAll(deps: AppDeps, identity: Identity): Promise<{ scanned: number; deleted: number }> {
  const expired = await collectExpiredDeploys(deps, identity);
  return deps.gate.exclusive(async () => {
    let scanned = 0;
    let deleted = expired.deleted;
    let batch: string[] = [];
    for await (const hash of deps.blobs.list()) {
      scanned++;
      batch.push(hash);
      if (batch.length >= 1000) {
        deleted += await deleteUnreferenced(deps, batch);
        batch = [];
      }
    }
    deleted += await deleteUnreferenced(deps, batch);
    return { scanned, deleted };
  });
}

import { randomBytes } from 'node:crypto';
import type { Identity } from '../../domain/auth.ts';
import { parseDeployFiles, serializeDeployManifest, type Deploy, type DeployBlob } from '../../domain/deploy/deploy.ts';
import { NotFoundError, ValidationError } from '../../domain/errors.ts';
import { fullPath, siteAddress } from '../../domain/paths.ts';
import { readable } from '../../domain/site/lifecycle.ts';
import { parseMetaFields, type MetaInput } from '../../domain/site/meta.ts';
import type { SiteDoc } from '../../projections/documents.ts';
import type { AppDeps } from '../deps.ts';
import type { DeployCreated } from '../contract/deploy.ts';
import { readLater, type Later } from '../contract/later.ts';
import type { PublishMeta } from '../contract/publish.ts';
import { refuseViewer } from '../authorize.ts';
import { previewTarget } from '../previews/target.ts';
import { publishTarget } from '../publish/target.ts';
import type { ManifestCache } from '../queries/manifest-cache.ts';

export type CreateDeployInput = {
  readonly meta: PublishMeta;
  /** `{path: sha256}`, checked here with the archive path rules (errors name the path). */
  readonly files: unknown;
  /** Publish this preview of the site instead of the live site (spec §14): needs `preview` there, not `publish`. */
  readonly preview?: string;
};

/** Spec §10: an unpublished deploy expires after one hour. */
export const DEFAULT_DEPLOY_TTL_MS = 60 * 60_000;

/**
 * `POST /ingest/deploys` (and `/api/deploys` for admins): opens an incremental deploy of
 * the meta's site, once `publish` is checked there (spec §10). Validates the
 * manifest, stores it as a blob, and answers which digests must be uploaded: those no
 * revision of THIS site (live, archived or in the trash) holds. Other sites' files never
 * count, so the answer cannot tell a publisher what anyone else stored.
 *
 * Runs under the shared publish gate, and the deploy's record (with every digest) is
 * written before the gate is left: a collection of a revision this site drops meanwhile
 * then sees the deploy and keeps what it relies on.
 */
export async function createDeploy(deps: AppDeps, identity: Identity, request: Later<CreateDeployInput>): Promise<DeployCreated> {
  refuseViewer(identity); // before the request is read: a viewer publishes nowhere
  const input = await readLater(request);
  const target = input.preview !== undefined ? previewDeployTarget(identity, input.meta, input.preview) : publishTarget(identity, input.meta);
  // A key (the ingest plane) or a signed-in admin (the portal, on the management plane; spec §5 lets admins publish there).
  if (identity.keyId === undefined && identity.principal.kind !== 'admin') throw new Error('a deploy is created with an API key or by an admin');
  const files = parseDeployFiles(input.files, deps.limits.maxExtractEntries);
  const now = deps.now();
  const id = randomBytes(16).toString('base64url');
  return deps.gate.shared(async () => {
    const site = await deps.queries.getSite(fullPath(target.address));
    // Refused now rather than after the uploads: the publish would refuse it the same way.
    if (input.preview !== undefined && (!site || !readable(site.status))) throw new NotFoundError(`no live site ${fullPath(target.address)}: publish it once first`);
    if (!site && target.meta.title === undefined) throw new ValidationError('meta.title is required for a new site');
    const held = await heldBySite(deps.manifests, site);
    const manifest = await deps.blobs.putBytes(serializeDeployManifest(files));
    const blobs: DeployBlob[] = [];
    for (const hash of new Set(files.values())) {
      const size = held.get(hash);
      blobs.push(size === undefined ? { hash, required: true } : { hash, required: false, size });
    }
    const deploy: Deploy = {
      id,
      address: target.address,
      meta: target.meta,
      ...(input.preview !== undefined ? { preview: input.preview } : {}),
      ...(identity.keyId !== undefined ? { keyId: identity.keyId } : {}),
      manifest: manifest.hash,
      files: files.size,
      createdAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + (deps.limits.deployTtlMs ?? DEFAULT_DEPLOY_TTL_MS)).toISOString(),
      status: 'open',
      uploadedBytes: 0,
    };
    await deps.deploys.createDeploy(deploy, blobs);
    return { id, required: blobs.filter((b) => b.required).map((b) => b.hash), expires_at: deploy.expiresAt };
  });
}

/**
 * A preview deploy's target (spec §14): the site of the meta, `preview` on it (checked before
 * anything is looked up) and the name's rules; of the meta, only what describes a preview.
 */
function previewDeployTarget(identity: Identity, meta: PublishMeta, name: string): { address: ReturnType<typeof siteAddress>; meta: MetaInput } {
  const address = siteAddress(meta.group ?? '', meta.slug);
  previewTarget(identity, fullPath(address), name);
  const { title, description, repo } = parseMetaFields(meta, false) as MetaInput;
  return { address, meta: { ...(title !== undefined ? { title } : {}), ...(description !== undefined ? { description } : {}), ...(repo !== undefined ? { repo } : {}) } };
}

/** Digest → size of every file of every revision the site retains (live, archived, its previews', or all of them in the trash). */
async function heldBySite(manifests: ManifestCache, site: SiteDoc | undefined): Promise<Map<string, number>> {
  const held = new Map<string, number>();
  if (!site) return held;
  for (const hash of new Set([site.live.manifest, ...site.archived.map((r) => r.manifest), ...(site.previews ?? []).map((p) => p.revision.manifest)])) {
    const manifest = await manifests.get(hash);
    for (const entry of manifest?.files.values() ?? []) held.set(entry.hash, entry.size);
  }
  return held;
}
